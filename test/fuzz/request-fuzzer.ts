/**
 * A spec-driven request fuzzer, reusable against any base URL (the server, the
 * mock, a server under injected faults). From a fixed seed it generates requests
 * over every operation of spec/openapi.yaml: valid ones (values drawn from the
 * schemas and from ids known to exist), and invalid ones (a parameter of the wrong
 * type, length, range or characters, repeated, malformed percent-escapes, unknown
 * paths and methods, bad or missing credentials, odd Accept headers, oversized
 * headers, malformed request lines). Every request goes over a raw socket, so
 * nothing normalises it on the way.
 *
 * Each response is checked against what the spec documents: for a matched
 * operation, the status must be one of its responses, the media type one of that
 * response's, problem bodies must validate against Problem (with the same status),
 * JSON bodies against their schema, PNGs must start with the PNG signature, and
 * documented headers must match their schemas. The document-level rules from the
 * spec's description apply too: 404 problem off the spec's paths, 405 problem with
 * `Allow` naming the path's methods for other methods, 204 for OPTIONS (CORS preflight), HEAD as
 * GET without a body, 400 problem for a malformed request, 431 for headers over
 * 16 KiB.
 *
 *   const report = await fuzz({ baseUrl, token, seed: 42, count: 10_000 });
 *   expect(report.serverErrors).toEqual([]);
 *   expect(report.undocumented).toEqual([]);
 */
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { problemErrors, resolve, schemaErrors, spec as defaultSpec, headerErrors, type Json } from '../helpers/spec.js';

export interface FuzzOptions {
  baseUrl: string;
  /** A token with every scope (labels:read, labels:print). */
  token: string;
  seed: number;
  count: number;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Ids that exist on the target, so valid requests also reach 200s (any id works on the mock). */
  known?: { location?: string[]; item?: string[]; asset?: string[]; printJob?: string[] };
  /** Per-request time-out (default 15 s): a request without an answer by then is a finding. */
  timeoutMs?: number;
  spec?: Json;
}

export interface Finding {
  request: string;
  status: number | null;
  problem: string;
}

export interface FuzzReport {
  requests: number;
  /** status -> count */
  statuses: Record<number, number>;
  /** operationId (or `(no operation)`) -> count */
  operations: Record<string, number>;
  /** Every 5xx. */
  serverErrors: Finding[];
  /** Responses the spec does not document (wrong status, media type, body or header). */
  undocumented: Finding[];
  /** Requests that got no HTTP response (reset, time-out). */
  transportErrors: Finding[];
  /** Requests sent per generation strategy. */
  strategies: Record<string, number>;
}

interface Operation {
  operationId: string;
  path: string;
  method: string;
  params: Json[];
  responses: Record<string, Json>;
  /** The JSON request body's examples and its schema's member names (operations that take a body). */
  bodyExamples?: Json[];
  bodyMembers?: string[];
}

interface FuzzRequest {
  method: string;
  target: string;
  headers: [string, string][];
  /** Bytes sent instead of the composed request (malformed request lines). */
  raw?: Buffer;
  /** A request body and its media type. */
  body?: { type: string; data: string };
  /** The operation the request means, when its path is one of the spec's. */
  op?: Operation;
  strategy: string;
}

/** Small, seedable PRNG (mulberry32): the same seed gives the same requests. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

const deref = (node: Json, spec: Json): Json => (node?.$ref ? deref(resolveIn(spec, node.$ref), spec) : node);
const resolveIn = (spec: Json, ref: string): Json => (spec === defaultSpec ? resolve(ref) : ref.replace(/^#\//, '').split('/').reduce((n: Json, k) => n?.[k], spec));

function operationsOf(spec: Json): Operation[] {
  return Object.entries<Json>(spec.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method))
      .map(([method, op]) => ({
        operationId: op.operationId,
        path,
        method: method.toUpperCase(),
        params: (op.parameters ?? []).map((p: Json) => deref(p, spec)),
        responses: Object.fromEntries(Object.entries<Json>(op.responses).map(([s, r]) => [s, deref(r, spec)])),
        bodyExamples: op.requestBody ? Object.values<Json>(deref(op.requestBody, spec).content['application/json'].examples ?? {}).map((e) => e.value) : undefined,
        bodyMembers: op.requestBody ? Object.keys(deref(deref(op.requestBody, spec).content['application/json'].schema, spec).properties ?? {}) : undefined,
      })),
  );
}

const RECORD_ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-';
const NASTY = ['', ' ', '%00', '%0A', '%0D%0Ainjected: 1', '..', '%2e%2e', '%2F', '%5C', '%22', '%3Cscript%3E', '%F0%9F%8F%B7', '%E2%80%AE', '%EF%BF%BF', '\'', '*', '%25', ';', ',', 'null', 'undefined', '-1', '0', '1e309', 'NaN', 'true', '%C0%AF'];
const MALFORMED_ESCAPES = ['%', '%Z', '%ZZ', '%E2%82', '%C0', '%FF%FE', '%ED%A0%80', '%%', '%0'];
const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'get'];
const ACCEPTS = ['*/*', 'image/*', 'image/png', 'application/json', 'application/problem+json', 'text/html', 'image/jpeg', 'application/xml', 'image/png;q=0', 'garbage', '', 'application/*, image/webp;q=0.9'];

function randomRecordId(rng: Rng, length = rng.int(1, 40)): string {
  let s = '';
  for (let i = 0; i < length; i++) s += rng.pick([...RECORD_ID_CHARS]);
  return s;
}

function validValue(rng: Rng, param: Json, spec: Json, known: FuzzOptions['known'], op: Operation): string {
  const schema = deref(param.schema, spec);
  if (param.in === 'path') {
    if (op.path.includes('/assets/')) return rng.chance(0.7) && known?.asset?.length ? rng.pick(known.asset) : String(rng.int(1, 999_999));
    if (op.path.includes('/location/')) return rng.chance(0.7) && known?.location?.length ? rng.pick(known.location) : randomRecordId(rng);
    if (op.path.includes('/item/')) return rng.chance(0.7) && known?.item?.length ? rng.pick(known.item) : randomRecordId(rng);
    if (schema.format === 'uuid') return rng.chance(0.5) && known?.printJob?.length ? rng.pick(known.printJob) : crypto.randomUUID();
  }
  if (schema.enum) return String(rng.pick(schema.enum));
  if (schema.type === 'boolean') return rng.pick(['true', 'false']);
  if (schema.type === 'integer') return String(rng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, 1000)));
  if (param.name === 'parent') return rng.chance(0.7) && known?.location?.length ? rng.pick(known.location) : randomRecordId(rng);
  if (schema.pattern === '^[0-9]+(-[0-9]+)*$') return rng.pick([String(rng.int(1, 999)), `000-${String(rng.int(1, 999)).padStart(3, '0')}`]);
  if (param.name === 'q') return encodeURIComponent(rng.pick(['drill', 'DRILL', 'Shelf', 'Дрель', 'ドリル', 'a', 'x y', '100%', 'bin_12', '"quoted"']));
  if (param.name === 'If-None-Match') return rng.pick(['"abc"', '*', 'W/"abc"', '"a", "b"']);
  if (param.name === 'Idempotency-Key') return `fuzz-${rng.int(1, 50)}`;
  if (param.name === 'cursor') return rng.pick(['eyJrIjp7fX0', 'abc', 'AAAA']);
  return randomRecordId(rng);
}

function invalidValue(rng: Rng, param: Json, spec: Json): string {
  const schema = deref(param.schema, spec);
  const options = [...NASTY];
  if (schema.type === 'boolean') options.push('maybe', 'TRUE', '1', 'yes', 'tru');
  if (schema.type === 'integer') options.push('abc', '1.5', String((schema.maximum ?? 100) + 1), String((schema.minimum ?? 0) - 1), '99999999999999999999', '0x10');
  if (schema.enum) options.push(`${schema.enum[0]}x`, String(schema.enum[0]).toUpperCase(), 'a4-sheet');
  const max = schema.maxLength ?? deref(schema, spec).maxLength;
  if (max) options.push('a'.repeat(max + 1), 'a'.repeat(max * 4));
  return rng.pick(options);
}

const LABEL_KINDS = ['location', 'item', 'asset'] as const;

/** A selection over the known ids (mostly), or ids that do not exist (a 422). */
function validSelection(rng: Rng, known: FuzzOptions['known']): Json {
  const id = (kind: (typeof LABEL_KINDS)[number]) => {
    const ids = known?.[kind] ?? [];
    if (ids.length && rng.chance(0.8)) return rng.pick(ids);
    return kind === 'asset' ? String(rng.int(1, 999_999)) : randomRecordId(rng);
  };
  switch (rng.int(0, 2)) {
    case 0:
      return { records: Array.from({ length: rng.int(1, 4) }, () => { const kind = rng.pick(LABEL_KINDS); return { kind, id: id(kind) }; }) };
    case 1:
      return { location: id('location'), ...(rng.chance(0.5) ? { descendants: rng.chance(0.5) } : {}), ...(rng.chance(0.5) ? { kind: rng.pick(LABEL_KINDS) } : {}) };
    default: {
      const from = rng.int(1, 60);
      return { assetIdFrom: String(from), assetIdTo: `000-${String(from + rng.int(0, 60)).padStart(3, '0')}` };
    }
  }
}

/** A valid body: one of the spec's examples with its selection redrawn over known ids and small options (bounded work). */
function validBody(rng: Rng, op: Operation, known: FuzzOptions['known'], spec: Json): Json {
  const body: Json = structuredClone(rng.pick(op.bodyExamples!));
  const has = (member: string) => op.bodyMembers!.includes(member);
  if ('selection' in body) body.selection = validSelection(rng, known);
  if (has('copies') && ('copies' in body || rng.chance(0.3))) body.copies = rng.int(1, 3);
  if (has('startAt') && ('startAt' in body || rng.chance(0.3))) body.startAt = rng.int(1, 21);
  if (has('guides') && rng.chance(0.3)) body.guides = rng.chance(0.5);
  if (has('template') && rng.chance(0.3)) body.template = rng.pick(deref({ $ref: '#/components/schemas/Template' }, spec).enum);
  if ('sheet' in body && rng.chance(0.5)) body.sheet = rng.pick(deref({ $ref: '#/components/schemas/SheetProduct' }, spec).enum);
  return body;
}

/** A body the spec refuses: wrong types, out of range, unknown members, not JSON, not JSON at all. */
function invalidBody(rng: Rng, op: Operation, known: FuzzOptions['known'], spec: Json): { type: string; data: string } {
  const body = validBody(rng, op, known, spec);
  const json = (v: unknown) => ({ type: 'application/json', data: JSON.stringify(v) });
  return rng.pick<() => { type: string; data: string }>([
    () => json({ ...body, copies: rng.pick([0, -1, 1001, 1.5, '2', null]) }),
    () => json({ ...body, startAt: rng.pick([0, 85, 'first']) }),
    () => json({ ...body, unknown: true }),
    () => json({ ...body, selection: rng.pick([{}, { records: [] }, { records: 'all' }, { location: '' }, { location: 'a b' }, { assetIdFrom: 'x', assetIdTo: '1' }, { records: [{ kind: 'shelf', id: 'x' }] }, { records: [{ kind: 'item', id: 'x'.repeat(65) }] }, { location: 'garage', records: [] }]) }),
    () => json({ ...body, sheet: rng.pick(['A4', 'avery', '', 7]) }),
    () => json({ ...body, template: 'a4-sheet' }),
    () => json({ ...body, selection: { records: Array.from({ length: 1001 }, () => ({ kind: 'item', id: 'x' })) } }),
    () => json(rng.pick([[], 'text', 42, null, true])),
    () => ({ type: 'application/json', data: rng.pick(['', '{', '{"a":', '{"sheet": "avery-l7160",}', "{'a': 1}", '\u0000', 'nul']) }),
    () => ({ type: rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1']), data: JSON.stringify(body) }),
    () => ({ type: 'application/json', data: JSON.stringify({ ...body, pad: 'x'.repeat(rng.int(257, 300) * 1024) }) }),
  ])();
}

function generate(rng: Rng, ops: Operation[], o: FuzzOptions, spec: Json): FuzzRequest {
  const op = rng.pick(ops);
  const strategies = ['valid', 'valid', 'valid', 'invalid-param', 'invalid-param', 'unknown-query', 'repeated-param', 'malformed-escape', 'path', 'method', 'auth', 'accept', 'headers', 'request-line'];
  const strategy = rng.pick(op.bodyExamples ? [...strategies, 'invalid-body', 'invalid-body', 'invalid-body'] : strategies);
  const headers: [string, string][] = [['Authorization', `Bearer ${o.token}`]];
  let method = op.method;
  let path = op.path;
  const query: string[] = [];
  const pick = (p: Json) => (strategy === 'valid' ? true : p.required || rng.chance(0.4));
  const broken = strategy === 'invalid-param' && op.params.length > 0 ? rng.pick(op.params) : undefined;

  for (const p of op.params) {
    if (!p.required && !pick(p) && p !== broken) continue;
    const value = p === broken ? invalidValue(rng, p, spec) : validValue(rng, p, spec, o.known, op);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, value === '' ? '' : /%/.test(value) ? value : encodeURIComponent(value));
    else if (p.in === 'query') query.push(`${p.name}=${/%/.test(value) ? value : encodeURIComponent(value)}`);
    else if (p.in === 'header' && /^[\t\x20-\x7e]*$/.test(value)) headers.push([p.name, value]);
  }
  // A path parameter left unfilled (optional ones never are) gets a random id.
  path = path.replace(/\{[^}]+\}/g, () => randomRecordId(rng));

  switch (strategy) {
    case 'unknown-query':
      query.push(rng.pick(['_=1700000000', 'utm_source=newsletter', 'cb=' + rng.int(0, 1e6), 'access_token=lm_abcdefgh_secretsecretsecretsecretsecret', 'callback=x', 'PRINT=true', '=', 'a', '&&']));
      break;
    case 'repeated-param': {
      const p = op.params.filter((x) => x.in === 'query');
      if (p.length > 0) {
        const name = rng.pick(p).name;
        query.push(`${name}=${validValue(rng, rng.pick(p), spec, o.known, op)}`, `${name}=${validValue(rng, rng.pick(p), spec, o.known, op)}`);
      }
      break;
    }
    case 'malformed-escape':
      if (rng.chance(0.5)) path += rng.pick(MALFORMED_ESCAPES);
      else query.push(`${rng.pick(['q', 'template', 'x'])}=${rng.pick(MALFORMED_ESCAPES)}`);
      break;
    case 'path':
      path = rng.pick([
        `${path}/`,
        `${path}/extra`,
        path.replace('/v1/', '/v2/'),
        path.replace('/labelmaker/', '/Labelmaker/'),
        path.replace('/v1/', '//v1/'),
        `${path}/..`,
        path.replace(/\/[^/]*$/, '/'),
        '/v1/labelmaker/asset/1',
        '/v1/labelmaker',
        '/v1',
        '/',
        `/v1/labelmaker/${randomRecordId(rng, 8)}`,
        path.replace('/labelmaker', '/labelmaker/./'),
      ]);
      break;
    case 'method':
      method = rng.pick(METHODS);
      if (method === 'OPTIONS' && rng.chance(0.5)) headers.push(['Origin', 'http://127.0.0.1:5173'], ['Access-Control-Request-Method', 'GET']);
      break;
    case 'auth':
      headers.splice(0, 1);
      {
        const a = rng.pick(['none', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer lm_abcdefgh_' + 'A'.repeat(43), 'bearer x', 'Bearer a b', 'Token x', `Bearer ${o.token}x`, `Bearer  ${o.token}`, 'Bearer ' + 'x'.repeat(5000)]);
        if (a !== 'none') headers.push(['Authorization', a]);
      }
      break;
    case 'accept':
      headers.push(['Accept', rng.pick(ACCEPTS)]);
      break;
    case 'headers':
      headers.push(
        rng.pick<[string, string]>([
          ['X-Padding', 'x'.repeat(rng.int(16 * 1024, 20 * 1024))],
          ['If-None-Match', 'x'.repeat(300)],
          ['Idempotency-Key', 'has space'],
          ['Idempotency-Key', 'k'.repeat(256)],
          ['Content-Length', '5'],
          ['Transfer-Encoding', 'chunked'],
          ['Range', 'bytes=0-10'],
          ['If-Match', '*'],
          ['Expect', '100-continue'],
          ['Cookie', 'session=abc'],
          ['Origin', 'https://evil.example'],
          ['Accept-Encoding', 'gzip, br'],
          ['X-Forwarded-For', '1.2.3.4'],
        ]),
      );
      break;
    default:
      break;
  }
  const target = query.length > 0 ? `${path}?${query.join('&')}` : path;
  // Operations with a body get one (valid, or broken by the invalid-body strategy) whatever the method sent.
  const body = op.bodyExamples ? (strategy === 'invalid-body' ? invalidBody(rng, op, o.known, spec) : { type: 'application/json', data: JSON.stringify(validBody(rng, op, o.known, spec)) }) : undefined;
  if (strategy === 'request-line') {
    // The operation's own method (a POST without its body is a 400 like any invalid request).
    const raw = rng.pick([
      `${op.method} ${target} HTTP/9.9\r\nHost: x\r\n\r\n`,
      `${op.method} ${target}\r\nHost: x\r\n\r\n`,
      `${op.method}  ${target} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `${op.method} ${target} extra HTTP/1.1\r\nHost: x\r\n\r\n`,
      `${op.method} ${target} HTTP/1.1\r\nno colon here\r\n\r\n`,
      `${op.method} ${target} HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`,
      `${op.method} ${target} HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n`,
      `${op.method} ${target.replace('/v1', '/v1\u00ff')} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `${op.method} http://x${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${o.token}\r\n\r\n`,
      // Empty lines before the request line are allowed (RFC 9112 2.2); a request that never comes is a 408 (contract suite).
      `\r\n\r\n${op.method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${o.token}\r\n\r\n`,
      `${op.method} ${target} HTTP/1.1\nHost: x\nAuthorization: Bearer ${o.token}\n\n`,
      `${op.method} ${target} HTTP/1.0\r\nAuthorization: Bearer ${o.token}\r\n\r\n`,
    ]);
    return { method: op.method, target, headers: [], raw: Buffer.from(raw, 'latin1'), op, strategy };
  }
  return { method, target, headers, body: body && (rng.chance(0.97) ? body : undefined), op: matches(op, method, path) ? op : undefined, strategy };
}

/** Whether the request's path is the operation's (the method may still differ). */
function matches(op: Operation, _method: string, path: string): boolean {
  const re = new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`);
  return re.test(path);
}

function compose(req: FuzzRequest, host: string): Buffer {
  if (req.raw) return req.raw;
  const lines = [`${req.method} ${req.target} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...req.headers.map(([k, v]) => `${k}: ${v}`)];
  if (!req.body) return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  // A header strategy may have sent its own Content-Length or Transfer-Encoding: the body's own framing wins.
  const data = Buffer.from(req.body.data, 'utf8');
  const framed = lines.filter((l) => !/^(content-length|transfer-encoding):/i.test(l));
  return Buffer.concat([Buffer.from(`${[...framed, `Content-Type: ${req.body.type}`, `Content-Length: ${data.length}`].join('\r\n')}\r\n\r\n`, 'latin1'), data]);
}

/** What is wrong with a response to `req`, or undefined when the spec documents it. */
export function undocumented(req: FuzzRequest, res: RawResponse, ops: Operation[], spec: Json = defaultSpec): string | undefined {
  const type = res.headers['content-type']?.split(';')[0]?.trim();
  const status = res.status;
  const isHead = req.method === 'HEAD' && !req.raw;
  const problemCheck = (): string | undefined => {
    if (isHead) return undefined;
    if (type !== 'application/problem+json') return `expected a problem, got ${type ?? 'no content type'}`;
    if (/charset/i.test(res.headers['content-type'] ?? '')) return 'problem media type carries a charset';
    let body: Json;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      return 'problem body is not JSON';
    }
    const errors = problemErrors(body);
    if (errors) return `problem body: ${errors}`;
    if (body.status !== status) return `problem status ${body.status} != ${status}`;
    return undefined;
  };
  // Document-level rules (the spec's description: Errors, Limits, HTTP details, Requests from browsers).
  if (status === 431 || status === 408) return problemCheck();
  if (req.raw) return status === 400 ? problemCheck() : status < 500 && ops.length > 0 && req.op ? checkOperation(req, res, req.op, spec) : `malformed request got ${status}`;
  const pathOnly = req.target.split('?')[0]!;
  const op = req.op ?? ops.find((o) => matches(o, req.method, pathOnly));
  if (!op) {
    if (status === 400 || status === 404) return problemCheck();
    return `no operation at ${pathOnly}, got ${status} (documented: 404, or 400 for a malformed URL)`;
  }
  const method = req.method.toUpperCase() === 'HEAD' ? 'GET' : req.method;
  if (method !== op.method) {
    if (req.method === 'OPTIONS') return status === 204 ? undefined : `OPTIONS got ${status} (documented: 204 preflight)`;
    if (status === 400) return problemCheck();
    if (status !== 405) return `${req.method} got ${status} (documented: 405)`;
    // Allow lists the methods the spec has at this path (GET with HEAD).
    const allow = ops.filter((o) => matches(o, o.method, pathOnly)).flatMap((o) => (o.method === 'GET' ? ['GET', 'HEAD'] : [o.method]));
    const sent = (res.headers['allow'] ?? '').split(', ');
    if (sent.length !== allow.length || !allow.every((m) => sent.includes(m))) return `405 with Allow: ${res.headers['allow']} (the path has ${allow.join(', ')})`;
    return problemCheck();
  }
  return checkOperation(req, res, op, spec);
}

function checkOperation(req: FuzzRequest, res: RawResponse, op: Operation, spec: Json): string | undefined {
  const status = res.status;
  const doc = op.responses[String(status)];
  if (!doc) return `${op.operationId} does not document ${status}`;
  const isHead = req.method === 'HEAD' && !req.raw;
  const type = res.headers['content-type']?.split(';')[0]?.trim();
  for (const [name, h] of Object.entries<Json>(doc.headers ?? {})) {
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) continue;
    const errors = headerErrors(h.$ref ? deref(h, spec) : h, value);
    if (errors) return `header ${name}: ${value}: ${errors}`;
  }
  if (!doc.content) return isHead || res.body.length === 0 ? undefined : `${status} should have no body`;
  if (isHead) return res.body.length === 0 ? undefined : 'HEAD response has a body';
  if (!type || !doc.content[type]) return `${op.operationId} ${status} is not documented as ${type}`;
  if (type === 'application/problem+json' || type === 'application/json') {
    if (/charset/i.test(res.headers['content-type'] ?? '')) return `${type} carries a charset`;
    let body: Json;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      return `${type} body is not JSON`;
    }
    const errors = type === 'application/problem+json' ? problemErrors(body) : schemaErrors(doc.content[type].schema, body);
    if (errors) return `body: ${errors}`;
    if (type === 'application/problem+json' && body.status !== status) return `problem status ${body.status} != ${status}`;
  }
  if (type === 'image/png' && !res.body.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))) return 'image/png body is not a PNG';
  if (type === 'application/pdf' && res.body.subarray(0, 5).toString('latin1') !== '%PDF-') return 'application/pdf body is not a PDF';
  return undefined;
}

function describe(req: FuzzRequest): string {
  const text = req.raw ? JSON.stringify(req.raw.toString('latin1').slice(0, 160)) : `${req.method} ${req.target.slice(0, 160)}`;
  const headers = req.headers.filter(([k]) => k !== 'Authorization').map(([k, v]) => `${k}: ${v.slice(0, 40)}`);
  return `[${req.strategy}] ${text}${headers.length ? ` {${headers.join('; ')}}` : ''}`;
}

export async function fuzz(o: FuzzOptions): Promise<FuzzReport> {
  const spec = o.spec ?? defaultSpec;
  const ops = operationsOf(spec);
  const rng = prng(o.seed);
  const host = new URL(o.baseUrl).host;
  const report: FuzzReport = { requests: 0, statuses: {}, operations: {}, serverErrors: [], undocumented: [], transportErrors: [], strategies: {} };
  // Requests are generated up front, in order, so the run depends on the seed only (not on timing).
  const requests = Array.from({ length: o.count }, () => generate(rng, ops, o, spec));
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++]!;
      report.strategies[req.strategy] = (report.strategies[req.strategy] ?? 0) + 1;
      const opName = req.op?.operationId ?? '(no operation)';
      report.operations[opName] = (report.operations[opName] ?? 0) + 1;
      let res: RawResponse;
      try {
        res = await rawRequest(o.baseUrl, compose(req, host), { complete: false, timeoutMs: o.timeoutMs ?? 15_000 });
      } catch (err) {
        report.transportErrors.push({ request: describe(req), status: null, problem: (err as Error).message.slice(0, 200) });
        continue;
      } finally {
        report.requests++;
      }
      report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
      if (res.status >= 500) report.serverErrors.push({ request: describe(req), status: res.status, problem: res.body.toString('utf8').slice(0, 300) });
      const wrong = undocumented(req, res, ops, spec);
      if (wrong) report.undocumented.push({ request: describe(req), status: res.status, problem: wrong });
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
  return report;
}

/** One line per figure, for logs and the CI output. */
export function summary(r: FuzzReport): string {
  const statuses = Object.entries(r.statuses).map(([s, n]) => `${s}:${n}`).join(' ');
  const ops = Object.entries(r.operations).map(([s, n]) => `${s}:${n}`).join(' ');
  return [
    `requests ${r.requests}; 5xx ${r.serverErrors.length}; undocumented ${r.undocumented.length}; no response ${r.transportErrors.length}`,
    `statuses ${statuses}`,
    `operations ${ops}`,
  ].join('\n');
}
