/**
 * Breaking changes between two versions of the OpenAPI document, from a client's
 * point of view. Written here because the npm diff tools we tried (openapi-diff)
 * miss parameter-level narrowing (an enum value removed, a parameter made
 * required, a shorter maxLength), which is most of what can break our clients.
 *
 * Requests: a removed operation or parameter, a new required parameter, a
 * parameter that became required, a narrowed parameter schema, a new scope.
 * Responses: a removed status code or media type, a removed or no-longer-required
 * property, a changed type, new enum values a client may not handle.
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function breakingChanges(oldSpec: Json, newSpec: Json): string[] {
  const out: string[] = [];
  const deref = (spec: Json) => (node: Json): Json => {
    let n = node;
    for (let i = 0; n?.$ref && i < 20; i++) n = pointer(spec, n.$ref);
    return n;
  };
  const o = deref(oldSpec);
  const n = deref(newSpec);

  for (const [path, oldItem] of Object.entries<Json>(oldSpec.paths ?? {})) {
    for (const method of METHODS) {
      const oldOp = oldItem[method];
      if (!oldOp) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const newOp = newSpec.paths?.[path]?.[method];
      if (!newOp) {
        out.push(`${where}: operation removed`);
        continue;
      }
      const params = (item: Json, op: Json, d: (x: Json) => Json) => {
        const map = new Map<string, Json>();
        for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map(d)) map.set(`${p.in} ${p.name}`, p);
        return map;
      };
      const oldParams = params(oldItem, oldOp, o);
      const newParams = params(newSpec.paths[path], newOp, n);
      for (const [key, op] of oldParams) {
        const np = newParams.get(key);
        if (!np) out.push(`${where}: parameter ${key} removed`);
        else {
          if (np.required && !op.required) out.push(`${where}: parameter ${key} became required`);
          narrowed(o(op.schema), n(np.schema), o, n, `${where}: parameter ${key}`, out);
        }
      }
      for (const [key, np] of newParams) {
        if (!oldParams.has(key) && np.required) out.push(`${where}: new required parameter ${key}`);
      }
      const oldScopes: string[] = oldOp['x-required-scopes'] ?? [];
      for (const s of newOp['x-required-scopes'] ?? []) {
        if (!oldScopes.includes(s)) out.push(`${where}: now needs scope ${s}`);
      }
      for (const [status, oldRes] of Object.entries<Json>(oldOp.responses ?? {})) {
        const newRes = newOp.responses?.[status];
        if (!newRes) {
          out.push(`${where}: response ${status} removed`);
          continue;
        }
        const oc = o(oldRes).content ?? {};
        const nc = n(newRes).content ?? {};
        for (const type of Object.keys(oc)) {
          if (!nc[type]) out.push(`${where}: response ${status} ${type} removed`);
          else responseChanged(o(oc[type].schema), n(nc[type].schema), o, n, `${where}: response ${status} ${type}`, out);
        }
      }
    }
  }
  return out;
}

/** Request side: every value the old schema accepted must still be accepted. */
function narrowed(a: Json, b: Json, o: (x: Json) => Json, n: (x: Json) => Json, where: string, out: string[]): void {
  if (!a || !b) return;
  if (a.type !== b.type) out.push(`${where}: type ${a.type} -> ${b.type}`);
  if (b.enum) {
    const lost = (a.enum ?? [undefined]).filter((v: unknown) => !b.enum.includes(v));
    if (lost.length > 0) out.push(`${where}: enum narrowed (no longer: ${lost.join(', ')})`);
  }
  // An enum widened to a pattern or length bounds narrows nothing if every old value still passes them.
  if (Array.isArray(a.enum) && !b.enum && a.enum.every((v: unknown) => typeof v === 'string' && stringAccepted(b, v))) return;
  const lower = (k: string) => b[k] !== undefined && (a[k] === undefined || b[k] > a[k]);
  const upper = (k: string) => b[k] !== undefined && (a[k] === undefined || b[k] < a[k]);
  for (const k of ['minLength', 'minimum', 'minItems']) if (lower(k)) out.push(`${where}: ${k} raised to ${b[k]}`);
  for (const k of ['maxLength', 'maximum', 'maxItems']) if (upper(k)) out.push(`${where}: ${k} lowered to ${b[k]}`);
  if (b.pattern !== undefined && b.pattern !== a.pattern) out.push(`${where}: pattern changed to ${b.pattern}`);
  if (b.format !== undefined && b.format !== a.format) out.push(`${where}: format changed to ${b.format}`);
  for (const [prop, schema] of Object.entries<Json>(a.properties ?? {})) {
    if (b.properties?.[prop]) narrowed(o(schema), n(b.properties[prop]), o, n, `${where}.${prop}`, out);
  }
  for (const req of b.required ?? []) if (!(a.required ?? []).includes(req)) out.push(`${where}: property ${req} became required`);
}

/** Whether a string schema (pattern and length bounds only) accepts the value. */
function stringAccepted(schema: Json, value: string): boolean {
  const length = Array.from(value).length;
  if (schema.type !== 'string' || (schema.minLength ?? 0) > length || (schema.maxLength ?? Infinity) < length) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value);
}

/** Response side: everything a client may rely on must still be there, with the same type and values. */
function responseChanged(a: Json, b: Json, o: (x: Json) => Json, n: (x: Json) => Json, where: string, out: string[]): void {
  if (!a || !b) return;
  if (a.type !== b.type) out.push(`${where}: type ${a.type} -> ${b.type}`);
  if (a.enum && b.enum) {
    const added = b.enum.filter((v: unknown) => !a.enum.includes(v));
    if (added.length > 0) out.push(`${where}: new enum values ${added.join(', ')}`);
  }
  if (a.nullable !== true && b.nullable === true) out.push(`${where}: may now be null`);
  for (const [prop, schema] of Object.entries<Json>(a.properties ?? {})) {
    const next = b.properties?.[prop];
    if (!next) out.push(`${where}: property ${prop} removed`);
    else responseChanged(o(schema), n(next), o, n, `${where}.${prop}`, out);
  }
  for (const req of a.required ?? []) if (!(b.required ?? []).includes(req)) out.push(`${where}: property ${req} no longer required`);
}

function pointer(spec: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
}

export function major(version: string): number {
  const m = /^(\d+)\./.exec(version);
  if (!m) throw new Error(`not a semantic version: ${version}`);
  return Number(m[1]);
}

/** Orders x.y.z versions numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
