/**
 * `npm run mock`: a mock of spec/openapi.yaml for frontend developers. Stoplight
 * Prism (run in this process: no child process to leave behind) answers with the
 * spec's examples, behind a front that
 * - checks every request with the server's own spec router (src/api/spec-router.ts):
 *   an invalid request gets exactly the server's status and problem, and an unknown
 *   query parameter is ignored as on the server;
 * - allows every origin (CORS), as pages on any local port call it;
 * - turns Prism's base64 PNG and PDF examples into real bytes (Prism 5 never sends binary
 *   bodies: it answers with a base64 `example` as text, and corrupts raw bytes in YAML)
 *   and answers HEAD as GET without a body;
 * - sends JSON request bodies on (POST) once the spec router has read and checked them.
 * Status, headers, problem bodies and `Prefer: code=` / `example=` pass through.
 *
 *   npm run mock                 # listens on MOCK_PORT (default 4010)
 *   npm run mock -- --errors     # Prism answers 500 when an example violates its schema
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { createLogger } from '@stoplight/prism-core';
import { getHttpOperationsFromSpec, type IHttpConfig } from '@stoplight/prism-http';
import { createServer as createPrismServer } from '@stoplight/prism-http-server';
import express, { type Request, type Response } from 'express';
import { pino } from 'pino';
import type { Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { bearerToken, checkKeyFormat, pathKeyParameter } from '../src/api/auth.js';
import { MAX_HEADER_BYTES, answerClientErrors } from '../src/api/client-errors.js';
import { PortInUseError, listen } from '../src/api/listen.js';
import { corsPolicy } from '../src/api/cors.js';
import { useExchange } from '../src/api/exchange.js';
import { ProblemError, sendProblem, sendProblemError } from '../src/api/problems.js';
import { compileTemplate, type TemplateInput } from '../src/api/template-design.js';
import { parseCatalogue, type FieldDefinition } from '../src/records/fields.js';
import { assertNameFree, optionalPreconditionOf, preconditionOf, unknownTemplate } from '../src/api/templates.js';
import { builtInTemplate } from '../src/labels/index.js';
import { InvalidPrinterError, settingsProblems } from '../src/printing/index.js';
import { createSpecRouter } from '../src/api/spec-router.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPEC = `${ROOT}spec/openapi.yaml`;
/** The server's default request time-out (REQUEST_TIMEOUT_MS), so slow clients meet the same cut. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface RunningMock {
  url: string;
  prismUrl: string;
  close(): Promise<void>;
}

export interface MockOptions {
  port?: number;
  host?: string;
  /** Prism's --errors: invalid examples/responses become 500s instead of warnings. */
  errors?: boolean;
  spec?: string;
}

export async function startMock({ port = 0, host = '127.0.0.1', errors = false, spec = SPEC }: MockOptions = {}): Promise<RunningMock> {
  const prism = await startPrism(spec, { isProxy: false, errors });
  const prismUrl = await prism.listen(0, '127.0.0.1');
  try {
    const app = await mockFront(spec, prismUrl);
    const front = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }, app);
    answerClientErrors(front, REQUEST_TIMEOUT_MS);
    await listen(front, port, host, 'MOCK_PORT');
    const addr = front.address() as AddressInfo;
    return {
      url: `http://${host}:${addr.port}`,
      prismUrl,
      close: async () => {
        front.closeAllConnections();
        await new Promise<void>((resolve) => front.close(() => resolve()));
        await prism.close();
      },
    };
  } catch (err) {
    await prism.close();
    throw err;
  }
}

/** The front: CORS for any origin, the server's request checks, then Prism. */
async function mockFront(spec: string, prismUrl: string): Promise<express.Express> {
  const definition = parseYaml(readFileSync(spec, 'utf8')) as Document;
  const savedNames = exampleTemplateNames(definition);
  const fields = exampleFields(definition);
  const router = await createSpecRouter(definition, {
    // Any bearer token will do; none gets the server's 401.
    authenticate: async (_c, req) => bearerToken(req.get('Authorization'), typeof req.query.access_token === 'string'),
    run: async (operationId, c, req, res) => {
      // Integration operations carry their key in the path: a malformed one gets the server's 401.
      const keyParam = pathKeyParameter(c.operation);
      if (keyParam) checkKeyFormat(String((c.request.params as Record<string, unknown>)[keyParam]));
      // The server's checks that need no database, so an invalid request gets the server's answer.
      // `template` in the query (labels), the path (integrations) or the body (sheets, batches).
      const body = res.locals.rawBody === undefined ? (c.request.requestBody as { template?: unknown } | undefined) : undefined;
      const template = (c.request.query as Record<string, unknown>).template ?? (c.request.params as Record<string, unknown>).template ?? body?.template;
      const inPath = (c.request.query as Record<string, unknown>).template === undefined && (c.request.params as Record<string, unknown>).template !== undefined;
      if (typeof template === 'string' && !builtInTemplate(template) && !savedNames.has(template)) throw unknownTemplate(template, inPath ? 'path parameter template' : undefined);
      if (operationId === 'putLabelTemplate') {
        preconditionOf(c.request.headers, 'put');
        assertNameFree(c.request.params.name as string);
        await compileTemplate(c.request.requestBody as TemplateInput, '', fields);
      } else if (operationId === 'previewLabelTemplate') {
        await compileTemplate((c.request.requestBody as { design: TemplateInput }).design, '/design', fields);
      } else if (operationId === 'deleteLabelTemplate') preconditionOf(c.request.headers, 'delete');
      else if (operationId === 'putPrinter') {
        // The server's checks of a printer that need no database (its location needs one: any id passes here).
        optionalPreconditionOf(c.request.headers);
        const printer = c.request.requestBody as { deviceUri: string; stocks?: string[] };
        const problems = settingsProblems({ deviceUri: printer.deviceUri, stocks: printer.stocks ?? [] });
        if (problems.length > 0) throw new InvalidPrinterError(problems);
      }
      await forwardToPrism(prismUrl, req, res, res.locals.rawBody ?? c.request.requestBody);
    },
    fail: (res, err) => {
      // As the server's router: an error that carries its problem is sent as it says (src/errors.ts).
      if (err instanceof ProblemError) return sendProblemError(res, err);
      sendProblem(res, 'internal-error', `The mock failed: ${(err as Error)?.message ?? String(err)}`);
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The server's first stage (ids, time-out, headers, CORS); the mock keeps no access log.
  useExchange(app, { logger: pino({ level: 'silent' }), accessLog: 'errors', requestTimeoutMs: REQUEST_TIMEOUT_MS, cors: corsPolicy('*', ['Prefer']) });
  app.use(router.handle);
  return app;
}

/** Headers about this connection or this request's body's framing (the body is sent anew): not for Prism. */
const HOP_BY_HOP_REQUEST_HEADERS = /^(host|connection|keep-alive|content-length|content-encoding|transfer-encoding|te|trailer|upgrade|expect|proxy-.*|origin)$/i;

/** Hop-by-hop and CORS headers: the front sets its own. */
const DROPPED_RESPONSE_HEADERS = /^(connection|keep-alive|transfer-encoding|content-length|vary|access-control-.*|x-request-id)$/i;

/** The mock's field catalogue: the one its listFields example shows, so templates may name those fields. */
function exampleFields(definition: Document): FieldDefinition[] {
  const list = (definition.paths?.['/v1/labelmaker/fields']?.get?.responses?.['200'] as { content?: Record<string, { example?: { fields?: unknown } }> })?.content;
  return parseCatalogue(list?.['application/json']?.example?.fields ?? []);
}

/** The mock's saved templates: those its examples show (listLabelTemplates), so labels may name them. */
function exampleTemplateNames(definition: Document): Set<string> {
  const list = (definition.paths?.['/v1/labelmaker/templates']?.get?.responses?.['200'] as { content?: Record<string, { example?: { templates?: { name: string }[] } }> })?.content;
  return new Set((list?.['application/json']?.example?.templates ?? []).map((t) => t.name));
}

async function forwardToPrism(prismUrl: string, req: Request, res: Response, requestBody?: unknown): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP_REQUEST_HEADERS.test(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The request target may be in absolute form (`GET http://host/v1/...`): Prism gets the path.
  const { pathname, search } = new URL(req.originalUrl, 'http://mock.invalid');
  // HEAD is GET without the body: Prism is asked for the GET.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  // Bytes (images) go on as they came; anything else the router parsed (JSON, form fields) as JSON.
  const raw = Buffer.isBuffer(requestBody);
  if (requestBody !== undefined && !raw) headers.set('content-type', 'application/json');
  const upstream = await fetch(prismUrl + pathname + search, { method, headers, body: requestBody === undefined ? undefined : raw ? new Uint8Array(requestBody) : JSON.stringify(requestBody) });
  let body: Buffer = Buffer.from(await upstream.arrayBuffer());
  const type = upstream.headers.get('content-type') ?? '';
  if (/^(image\/|application\/pdf)/i.test(type) && /^[A-Za-z0-9+/=\s]+$/.test(body.toString('latin1'))) body = Buffer.from(body.toString('latin1'), 'base64');
  // Problems carry this request's id, as the server's do (Prism's examples cannot know it).
  if (/^application\/problem\+json/i.test(type) && body.length > 0) body = withRequestId(body, res.locals.requestId);
  res.status(upstream.status);
  upstream.headers.forEach((value, name) => {
    if (DROPPED_RESPONSE_HEADERS.test(name)) return;
    // Prism sends every documented header; Print-Job only belongs to print=true.
    if (name === 'print-job' && req.query.print !== 'true') return;
    res.setHeader(name, value);
  });
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
}

function withRequestId(body: Buffer, requestId: string | undefined): Buffer {
  try {
    return Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString('utf8')) as object), requestId }));
  } catch {
    return body;
  }
}

async function startPrism(spec: string, mode: { isProxy: false; errors: boolean } | { isProxy: true; upstream: string }): Promise<ReturnType<typeof createPrismServer>> {
  const operations = await getHttpOperationsFromSpec(spec);
  const shared = { validateRequest: true, validateResponse: true, checkSecurity: true, mock: { dynamic: false }, upstreamProxy: undefined };
  const config = (
    mode.isProxy ? { ...shared, errors: true, isProxy: true, upstream: new URL(mode.upstream) } : { ...shared, errors: mode.errors, isProxy: false }
  ) as IHttpConfig;
  return createPrismServer(operations, { cors: false, config, components: { logger: createLogger('prism', { level: 'silent' }) } });
}

/**
 * `prism proxy --errors` in front of a real server, in this process: it validates
 * status codes, headers and problem bodies against the spec (a violation becomes a
 * 500 with an sl-violations header). It corrupts binary bodies, so PNGs are checked
 * elsewhere.
 */
export async function startProxy(upstream: string, spec = SPEC): Promise<{ url: string; close(): Promise<void> }> {
  const prism = await startPrism(spec, { isProxy: true, upstream });
  return { url: await prism.listen(0, '127.0.0.1'), close: () => prism.close() };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = Number(process.env.MOCK_PORT ?? 4010);
  let mock: RunningMock;
  try {
    mock = await startMock({ port, host: process.env.MOCK_HOST ?? '127.0.0.1', errors: process.argv.includes('--errors') });
  } catch (err) {
    if (!(err instanceof PortInUseError)) throw err;
    console.error(`labelmaker mock: ${err.message}`);
    process.exit(2);
  }
  console.log(`Labelmaker mock (Prism) listening on ${mock.url}`);
  console.log(`Try: curl -f -H 'Authorization: Bearer any' -o label.png ${mock.url}/v1/labelmaker/assets/000-001`);
  console.log(`     curl -H 'Authorization: Bearer any' -H 'Accept: image/png, application/problem+json' -H 'Prefer: code=404' ${mock.url}/v1/labelmaker/assets/000-001`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // `npm run mock` execs this process, so npm's signals reach it; should whatever started
  // it die without passing a signal on (kill -9), the mock goes too instead of lingering.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}
