/**
 * Requests checked against the spec: the one request validator, used by the
 * server (router.ts) and by the mock (scripts/mock.ts), so both answer every
 * request, valid or not, with the same status and problem. Built on
 * openapi-backend in strict mode with every special handler registered (it fails
 * open otherwise; see shared/notes/toolchain.md).
 *
 * Order, for both: well-formed URL (400) -> route (404, 405) -> Accept (406) ->
 * credentials (401) -> parameters (400) -> the operation.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { OpenAPIBackend, type Context, type Document, type Request as BackendRequest } from 'openapi-backend';
import { addFormats } from './ajv-formats.js';
import { sendProblem } from './problems.js';

export interface SpecRouterHooks {
  /** Checks the request's credentials; throws (an HttpProblem, a store error) to refuse. */
  authenticate(c: Context, req: Request, res: Response): Promise<unknown>;
  /** Runs a routed, authenticated, valid request. */
  run(operationId: string, c: Context, req: Request, res: Response): Promise<void>;
  /** Answers whatever authenticate or run threw. */
  fail(res: Response, err: unknown): void;
}

export interface SpecRouter {
  /** Express middleware: routes, negotiates, authenticates, validates and runs the operation. */
  handle: RequestHandler;
  /** Names of the operations in the spec. */
  operationIds: string[];
}

/** Methods a path may answer; HEAD is GET without the body (RFC 9110). */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Largest request body: a selection of 1000 records is about 80 KiB. */
export const MAX_BODY_BYTES = 256 * 1024;
// Any declared type is read as JSON once handle() has checked it is JSON (415 otherwise).
const readJson = express.json({ limit: MAX_BODY_BYTES, strict: true, type: () => true });

export async function createSpecRouter(definition: Document, hooks: SpecRouterHooks): Promise<SpecRouter> {
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    // Query strings arrive as text; coercion turns print=true into a real boolean.
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    // The spec uses standard formats (uuid, date-time, uri-reference): validate them, don't ignore them.
    customizeAjv: (ajv) => addFormats(ajv),
  });

  api.registerSecurityHandler('bearerAuth', (c: Context, req: Request, res: Response) => hooks.authenticate(c, req, res));
  api.register({
    unauthorizedHandler: (c: Context, _req: Request, res: Response) => {
      // A credentials problem (401), or a failing token store (503/500).
      hooks.fail(res, (c.security?.bearerAuth as { error?: unknown } | undefined)?.error);
    },
    validationFail: (c: Context, _req: Request, res: Response) => {
      sendProblem(res, 'invalid-request', describeErrors(c) || 'The request is not valid.');
    },
    notFound: (_c: Context, req: Request, res: Response) => {
      sendProblem(res, 'not-found', `There is no operation at ${req.path}.`);
    },
    methodNotAllowed: (_c: Context, req: Request, res: Response) => {
      const allowed = METHODS.filter((method) => api.matchOperation({ method, path: req.baseUrl + req.path, headers: {} }));
      const allow = allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
      sendProblem(res, 'method-not-allowed', `${req.method} is not allowed here; use ${allow.replace(/, ([^,]+)$/, ' or $1')}.`, { Allow: allow });
    },
    notImplemented: (c: Context, _req: Request, res: Response) => {
      hooks.fail(res, new Error(`operation ${c.operation?.operationId} has no handler`));
    },
  });
  const operationIds = Object.values(definition.paths ?? {}).flatMap((item) =>
    Object.values(item ?? {}).flatMap((op) => (typeof op === 'object' && op && 'operationId' in op && op.operationId ? [op.operationId] : [])),
  );
  for (const operationId of operationIds) {
    api.register(operationId, (c: Context, req: Request, res: Response) => {
      // HEAD is safe (RFC 9110): it must never print, so it cannot stand in for GET here.
      if (req.method === 'HEAD' && (c.request.query as Record<string, unknown>).print === true) {
        sendProblem(res, 'invalid-request', 'HEAD never prints: send print=true with GET.');
        return Promise.resolve();
      }
      return hooks.run(operationId, c, req, res).catch((err: unknown) => hooks.fail(res, err));
    });
  }
  await api.init();

  // Per operation, read once from the spec: its query parameter names, the media types of its 2xx responses, and whether it takes a body.
  const queryNames = new Map<string, Set<string>>();
  const successTypes = new Map<string, string[]>();
  const takesBody = new Set<string>();
  for (const op of api.getOperations()) {
    if (op.requestBody) takesBody.add(op.operationId!);
    const params = (op.parameters ?? []) as { in: string; name: string }[];
    queryNames.set(op.operationId!, new Set(params.filter((p) => p.in === 'query').map((p) => p.name)));
    successTypes.set(
      op.operationId!,
      Object.entries(op.responses ?? {})
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, r]) => Object.keys((r as { content?: object }).content ?? {})),
    );
  }

  // Express's req goes in as a plain object: under coerceTypes openapi-backend copies the
  // request with a spread, which would lose Express's req.path getter (toolchain notes).
  const asRequest = (req: Request): BackendRequest => {
    const request: BackendRequest = {
      method: req.method === 'HEAD' ? 'GET' : req.method,
      path: req.baseUrl + req.path,
      query: req.query as Record<string, string>,
      headers: req.headers as Record<string, string>,
      body: undefined,
    };
    const op = api.matchOperation(request);
    if (op) {
      // Unknown query parameters (cache-busters, tracking) are ignored, as the spec documents.
      const known = queryNames.get(op.operationId!)!;
      request.query = Object.fromEntries(Object.entries(req.query as Record<string, string>).filter(([name]) => known.has(name)));
    }
    return request;
  };

  return {
    operationIds,
    handle: (req: Request, res: Response, next: NextFunction) => {
      const request = asRequest(req);
      const op = api.matchOperation(request);
      // Errors are problem+json, so a client must accept the operation's media type or problem+json.
      const types = op && successTypes.get(op.operationId!);
      if (types && req.get('Accept') && !req.accepts([...types, 'application/problem+json'])) {
        return sendProblem(res, 'not-acceptable', `This operation returns ${types.join(' or ')} (or application/problem+json on errors).`);
      }
      if (!op || !takesBody.has(op.operationId!)) return void api.handleRequest(request, req, res).catch(next);
      readBody(req, res, (body) => {
        request.body = body;
        api.handleRequest(request, req, res).catch(next);
      });
    },
  };
}

/**
 * A JSON request body, bounded (413), of the right type (415) and well-formed (400);
 * undefined when there is none (the spec's `required` then makes it a 400).
 */
function readBody(req: Request, res: Response, then: (body: unknown) => void): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    return sendProblem(res, 'unsupported-media-type', 'The request body must be application/json.');
  }
  readJson(req, res, (err?: unknown) => {
    if (!err) return then(req.body);
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') return sendProblem(res, 'payload-too-large', `The request body is limited to ${MAX_BODY_BYTES / 1024} KiB.`);
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') return sendProblem(res, 'unsupported-media-type', 'The request body must be application/json in UTF-8, without content encoding.');
    sendProblem(res, 'invalid-request', 'The request body is not valid JSON.');
  });
}

/** "query parameter template: must be equal to one of the allowed values (a, b)". */
function describeErrors(c: Context): string {
  return (c.validation.errors ?? [])
    .map((e) => {
      const path = e.instancePath.replace(/^\//, '');
      // "query/template" -> "query parameter template"; "requestBody/selection/records" -> "request body selection/records".
      const where = path.startsWith('requestBody') ? path.replace(/^requestBody\/?/, 'request body ').trim() : path.replace('/', ' parameter ');
      const allowed = e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as string[]).join(', ')})` : '';
      return `${where || 'request'}: ${e.message}${allowed}`;
    })
    .join('; ');
}

/**
 * 400 for a request whose path or query has a malformed percent-escape (`%` without
 * two hex digits, or bytes that are not UTF-8): nothing further down has to cope.
 */
export function rejectMalformedUrls(): RequestHandler {
  return (req, res, next) => {
    const url = req.originalUrl;
    const q = url.indexOf('?');
    const parts: [string, string][] = [
      ['path', q < 0 ? url : url.slice(0, q)],
      ['query', q < 0 ? '' : url.slice(q + 1).replaceAll('+', ' ')],
    ];
    for (const [part, text] of parts) {
      try {
        decodeURIComponent(text);
      } catch {
        return sendProblem(res, 'invalid-request', `The request ${part} has a malformed percent-escape: '%' must start %XX, and the escaped bytes must be UTF-8.`);
      }
    }
    next();
  };
}
