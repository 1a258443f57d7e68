/**
 * One contract suite, several targets: the real server, the Prism mock, and the
 * real server behind `prism proxy --errors`. Each target says how to make it give
 * a documented response (real conditions on the server, `Prefer: code=` on the
 * mock); the assertions are the same for all, so whatever the mock promises the
 * server must do, and the reverse.
 */
import { describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { pdfPageCount } from '../helpers/pdf.js';
import { readPngHeader } from '../helpers/png.js';
import { rawRequest } from '../helpers/raw-http.js';
import { documentedResponse, headerErrors, problemErrors, schemaErrors, spec, type Json } from '../helpers/spec.js';

export interface Call {
  path: string;
  /** GET unless given. */
  method?: string;
  /** A request body: a string is sent as is (its Content-Type in headers); anything else as JSON. */
  body?: unknown;
  /** A body of another media type. */
  rawBody?: { type: string; data: string | Buffer };
  headers?: Record<string, string>;
  /** null: send no Authorization header; undefined: the target's default token. */
  token?: string | null;
  /** Send the request line and headers but never finish them (a slow client). */
  stall?: boolean;
  /** Send only the headers, declaring a body of this many bytes (Content-Length), in `rawBody.type`: a body too large to build. */
  declaredLength?: number;
}

export interface ContractTarget {
  url: string;
  token: string;
  /** False behind prism proxy, which corrupts binary bodies. */
  pngBodies: boolean;
  /** How to get `status` from `operationId` on this target; undefined if this target cannot. */
  trigger(operationId: string, status: number): Promise<Call | undefined> | Call | undefined;
  /** Extra check on every response (e.g. no sl-violations from prism proxy). */
  check?(res: Response): void;
  /** The Origin every call sends, as a page on another origin would, and the Access-Control-Allow-Origin expected back. */
  cors?: { origin: string; allowOrigin: string };
}

/** A page on another loopback origin, as a frontend developer runs one. */
export const PAGE_ORIGIN = 'http://127.0.0.1:5173';

/** Every operation of the spec, once: the one list the contract tests take their operations from. */
export const OPERATIONS: { operationId: string; method: string; path: string; item: Json; op: Json }[] = Object.entries<Json>(spec.paths).flatMap(([path, item]) =>
  Object.entries<Json>(item)
    .filter(([, op]) => typeof op === 'object' && op !== null && 'operationId' in op)
    .map(([method, op]) => ({ operationId: op.operationId as string, method: method.toUpperCase(), path, item, op })),
);

/** Every (operation, status) pair the spec documents. */
export const DOCUMENTED: { operationId: string; status: number }[] = OPERATIONS.flatMap(({ operationId, op }) =>
  Object.keys(op.responses).map((status) => ({ operationId, status: Number(status) })),
);

/** A 1 x 1 white PNG: the mock checks a body's media type and size, not its picture. */
export const MOCK_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABAQAAAAA3bvkkAAAACklEQVR4AWP4DwABAQEAWk1v8QAAAABJRU5ErkJggg==', 'base64');

/**
 * Headers a valid request needs that the spec gives no value for: deleting a template
 * takes any ETag in If-Match (the mock, as the server, answers 428 without one).
 */
const EXAMPLE_HEADERS: Record<string, Record<string, string>> = { deleteLabelTemplate: { 'If-Match': '"Vq8bKc4yLmhR1Xn3fG2wz0"' }, deleteRecord: { 'If-Match': '"Vq8bKc4yLmhR1Xn3fG2wz0abcde"' } };

const deref = (node: Json): Json => {
  let n = node;
  for (let i = 0; n?.$ref && i < 20; i++) n = n.$ref.slice(2).split('/').reduce((at: Json, key: string) => at?.[key], spec);
  return n;
};

/**
 * A valid request of an operation, from the spec alone: its method and path, path
 * parameters and required query parameters from their examples, a header whose schema
 * is an enum (If-None-Match: * to create a template) at its value, the request body's
 * (first) example or a PNG, and no bearer token where the operation takes none. What
 * the mock answers with `Prefer: code=`, and what the server answers 408 and 431 to.
 */
export function exampleCall(operationId: string): Call {
  const found = OPERATIONS.find((o) => o.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the spec`);
  const { method, path, item, op } = found;
  const params: Json[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
  const value = (p: Json): string => String(p.example ?? deref(p.schema)?.example ?? deref(p.schema)?.enum?.[0]);
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(value(params.find((p) => p.in === 'path' && p.name === name))));
  const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(value(p))}`);
  const headers: Record<string, string> = {
    ...Object.fromEntries(params.filter((p) => p.in === 'header' && deref(p.schema)?.enum).map((p) => [p.name, value(p)])),
    ...EXAMPLE_HEADERS[operationId],
  };
  const call: Call = { path: query.length ? `${filled}?${query.join('&')}` : filled, headers };
  if (method !== 'GET') call.method = method;
  if (Array.isArray(op.security) && op.security.length === 0) call.token = null;
  const content = deref(op.requestBody)?.content ?? {};
  const json = content['application/json'];
  if (json) call.body = json.example ?? deref(Object.values<Json>(json.examples ?? {})[0])?.value;
  else if (content['image/png']) call.rawBody = { type: 'image/png', data: MOCK_PNG };
  return call;
}

/** `call` asking the mock for `status` (Prism answers the example of the status a request prefers). */
export function preferring(call: Call, status: number): Call {
  return { ...call, headers: { ...call.headers, Prefer: `code=${status}` } };
}

const CONDITIONAL_HEADERS = new Set(['Access-Control-Allow-Origin', 'Print-Job', 'Print-Printer', 'Label-Warnings', 'Sheet-Label-Warnings']);

export function contractSuite(name: string, target: () => ContractTarget, available: (operationId: string, status: number) => boolean): void {
  describe(name, () => {
    for (const { operationId, status } of DOCUMENTED.filter((d) => available(d.operationId, d.status))) {
      it(`${operationId} ${status} is as documented`, async () => {
        const t = target();
        const call = await t.trigger(operationId, status);
        if (!call) throw new Error(`no trigger for ${operationId} ${status}`);
        const headers: Record<string, string> = { Accept: 'image/png, application/pdf, application/json;q=0.9, application/problem+json;q=0.8', ...call.headers };
        let requestBody: string | Uint8Array<ArrayBuffer> | undefined;
        if (typeof call.body === 'string') requestBody = call.body;
        else if (call.body !== undefined) {
          requestBody = JSON.stringify(call.body);
          headers['Content-Type'] = 'application/json';
        } else if (call.rawBody) {
          requestBody = typeof call.rawBody.data === 'string' ? call.rawBody.data : new Uint8Array(call.rawBody.data);
          headers['Content-Type'] = call.rawBody.type;
        }
        if (t.cors) headers.Origin = t.cors.origin;
        const token = call.token === undefined ? t.token : call.token;
        if (token) headers.Authorization = `Bearer ${token}`;
        const res = call.stall ? await stalled(t.url, call.path, headers) : call.declaredLength ? await declared(t.url, call, headers) : await fetch(t.url + call.path, { method: call.method ?? 'GET', headers, body: requestBody });
        const body = Buffer.from(await res.arrayBuffer());
        t.check?.(res);
        expect(res.status, body.toString('utf8').slice(0, 300)).toBe(status);
        // Answers from the API layer carry CORS headers a page can use (408/431 come from the HTTP parser, before any header is read).
        if (t.cors && status !== 408 && status !== 431) {
          expect(res.headers.get('access-control-allow-origin'), 'Access-Control-Allow-Origin').toBe(t.cors.allowOrigin);
          if (status === 200) expect(res.headers.get('access-control-expose-headers') ?? '').toMatch(/ETag/);
        }

        const doc = documentedResponse(operationId, status);
        for (const [header, spec] of Object.entries<Json>(doc.headers ?? {})) {
          if (CONDITIONAL_HEADERS.has(header)) continue;
          const value = res.headers.get(header);
          expect(value, `header ${header}`).not.toBeNull();
          expect(headerErrors(spec, value!), `header ${header}: ${value}`).toBeUndefined();
        }
        const type = res.headers.get('content-type')?.split(';')[0]?.trim();
        if (!doc.content) {
          expect(body.length).toBe(0);
          return;
        }
        expect(Object.keys(doc.content)).toContain(type);
        if (type === 'application/problem+json') {
          const problem = JSON.parse(body.toString('utf8'));
          expect(problemErrors(problem)).toBeUndefined();
          expect(problem.status).toBe(status);
          // The server's problem type is the one the spec's example promises.
          const media = doc.content['application/problem+json'];
          const examples = media.example ? [media.example] : Object.values<Json>(media.examples ?? {}).map((e) => e.value);
          expect(examples.map((e) => e.type)).toContain(problem.type);
        } else if (type === 'application/json') {
          expect(schemaErrors(doc.content[type].schema, JSON.parse(body.toString('utf8')))).toBeUndefined();
        } else if (type === 'image/png' && t.pngBodies) {
          const header = readPngHeader(body);
          expect(header.bitDepth).toBe(1);
          expect(header.colorType).toBe(0);
          const codes = await decodeBarcodes(body);
          expect(codes.some((c) => c.format === 'QRCode' && /^https?:\/\/.+\/(location|item|a)\/[^/]+$/.test(c.text))).toBe(true);
        } else if (type === 'application/pdf' && t.pngBodies) {
          expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
          expect(pdfPageCount(body)).toBeGreaterThanOrEqual(1);
        }
      });
    }
  });
}

/** Headers that declare a body of call.declaredLength bytes, and no body: what a server with a smaller limit refuses at once. */
async function declared(url: string, call: Call, headers: Record<string, string>): Promise<Response> {
  const all = { ...headers, Host: new URL(url).host, 'Content-Length': String(call.declaredLength), Connection: 'close' };
  const head = [`${call.method ?? 'GET'} ${call.path} HTTP/1.1`, ...Object.entries(all).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  const raw = await rawRequest(url, head, { timeoutMs: 30_000 });
  return new Response(raw.body.length > 0 ? new Uint8Array(raw.body) : null, { status: raw.status, headers: raw.headers });
}

/** A client that sends its request line and headers but never the blank line that ends them. */
async function stalled(url: string, path: string, headers: Record<string, string>): Promise<Response> {
  const head = [`GET ${path} HTTP/1.1`, `Host: ${new URL(url).host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n') + '\r\n';
  const raw = await rawRequest(url, head, { complete: false, timeoutMs: 60_000 });
  return new Response(raw.body.length > 0 ? new Uint8Array(raw.body) : null, { status: raw.status, headers: raw.headers });
}
