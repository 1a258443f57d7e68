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
import { bodyRuleOf, readBody, type BodyRule } from './bodies.js';
import { sendProblem } from './problems.js';
import { redactRequestTarget } from './redact.js';

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

export { MAX_BODY_BYTES } from './bodies.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export async function createSpecRouter(definition: Document, hooks: SpecRouterHooks): Promise<SpecRouter> {
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    // Query strings arrive as text; coercion turns print=true into a real boolean.
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    // The spec uses standard formats (uuid, date-time, uri-reference): validate them, don't ignore them.
    customizeAjv: (ajv) => addFormats(ajv),
    // Patterns without the `u` flag: V8 interprets a regular expression on its first runs
    // before it compiles it, and with `u` TemplateLogoInput's base64 pattern took 260-330 ms
    // on a 384 KB logo (9-70 ms without, by content) on the busy 2-core machine: a stall of
    // the event loop for the first large logos after a start. No pattern in the spec needs
    // `u` (none uses \p{} or treats characters beyond U+FFFF differently).
    ajvOpts: { unicodeRegExp: false },
    // Without `quick`, init() also checks the document against the OpenAPI schema (Spectral
    // and Redocly do that in `npm test`) and compiles a validator for every response of
    // every operation (never used here): most of a start-up's CPU, 3 s of it on a busy
    // 2-core machine (profiled). The request validators are compiled below, after init.
    quick: true,
  });

  api.registerSecurityHandler('bearerAuth', (c: Context, req: Request, res: Response) => hooks.authenticate(c, req, res));
  api.register({
    unauthorizedHandler: (c: Context, _req: Request, res: Response) => {
      // A credentials problem (401), or a failing token store (503/500).
      hooks.fail(res, (c.security?.bearerAuth as { error?: unknown } | undefined)?.error);
    },
    validationFail: (c: Context, _req: Request, res: Response) => {
      if (res.locals.bodyNotJson) return sendProblem(res, 'invalid-request', 'The request body is not valid JSON.');
      sendProblem(res, 'invalid-request', describeErrors(c) || 'The request is not valid.');
    },
    notFound: (_c: Context, req: Request, res: Response) => {
      sendProblem(res, 'not-found', `There is no operation at ${redactRequestTarget(req.path)}.`);
    },
    methodNotAllowed: (_c: Context, req: Request, res: Response) => {
      // The methods of the path this request matched (HEAD with GET, RFC 9110).
      const allow = allowedMethods(definition, req.baseUrl + req.path);
      sendProblem(res, 'method-not-allowed', `${req.method} is not allowed here; use ${allow.replace(/, ([A-Z]+)$/, ' or $1')}.`, { Allow: allow });
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
  // Every request validator now, not on an operation's first request: a spec the
  // validator cannot compile stops the start, and first requests are not slow.
  api.validator.preCompileRequestValidators();
  // The router rebuilds every operation object (lodash chains over the whole document) each
  // time it matches or looks one up: six times per request. The definition is final after
  // init(), so build them once (profiled: a quarter of a cached label's CPU went there).
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  api.router.matchOperation = precompiledMatcher(api.router, operations) as typeof api.router.matchOperation;

  // Per operation, read once from the spec: its query parameter names, the media types of its 2xx responses, and whether it takes a body.
  const concretePaths = new Set(Object.keys(definition.paths ?? {}).filter((p) => !p.includes('{')));
  const queryNames = new Map<string, Set<string>>();
  // Per operation that takes a body: its media types and size limit (bodies.ts), from the dereferenced operations.
  const bodyRules = new Map<string, BodyRule>();
  const successTypes = new Map<string, string[]>();
  for (const op of api.getOperations()) {
    const params = (op.parameters ?? []) as { in: string; name: string }[];
    queryNames.set(op.operationId!, new Set(params.filter((p) => p.in === 'query').map((p) => p.name)));
    const rule = bodyRuleOf(op as Parameters<typeof bodyRuleOf>[0]);
    if (rule) bodyRules.set(op.operationId!, rule);
    successTypes.set(
      op.operationId!,
      Object.entries(op.responses ?? {})
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, r]) => Object.keys((r as { content?: object }).content ?? {})),
    );
  }

  // Express's req goes in as a plain object: under coerceTypes openapi-backend copies the
  // request with a spread, which would lose Express's req.path getter (toolchain notes).
  const asRequest = (req: Request): { request: BackendRequest; op: ReturnType<typeof api.matchOperation> } => {
    const request: BackendRequest = {
      method: req.method === 'HEAD' ? 'GET' : req.method,
      path: req.baseUrl + req.path,
      query: req.query as Record<string, string>,
      headers: req.headers as Record<string, string>,
      body: req.body as unknown,
    };
    const op = api.matchOperation(request);
    if (op) {
      // Unknown query parameters (cache-busters, tracking) are ignored, as the spec documents.
      const known = queryNames.get(op.operationId!)!;
      request.query = Object.fromEntries(Object.entries(req.query as Record<string, string>).filter(([name]) => known.has(name)));
    }
    return { request, op };
  };

  return {
    operationIds,
    handle: (req: Request, res: Response, next: NextFunction) => {
      const { request, op } = asRequest(req);
      // A concrete path wins over a templated one (OpenAPI): GET /print-jobs/images is not getPrintJob.
      if (op && op.path.includes('{') && concretePaths.has(request.path)) {
        const allow = allowedMethods(definition, request.path);
        return sendProblem(res, 'method-not-allowed', `${req.method} is not allowed here; use ${allow.replace(/, ([A-Z]+)$/, ' or $1')}.`, { Allow: allow });
      }
      res.locals.operationId = op?.operationId; // for the request metrics
      // Errors are problem+json, so a client must accept the operation's media type or problem+json.
      const types = op && successTypes.get(op.operationId!);
      if (types && req.get('Accept') && !req.accepts([...types, 'application/problem+json'])) {
        return sendProblem(res, 'not-acceptable', `This operation returns ${types.join(' or ')} (or application/problem+json on errors).`);
      }
      const rule = op && bodyRules.get(op.operationId!);
      if (rule) {
        // The body's size and media type are checked as it arrives; whether it is JSON, after the credentials (validationFail).
        return readBody(req, res, rule, (body) => {
          request.body = body;
          api.handleRequest(request, req, res).catch(next);
        });
      }
      api.handleRequest(request, req, res).catch(next);
    },
  };
}

type Router = OpenAPIBackend['router'];
type Operation = ReturnType<Router['getOperations']>[number];

/**
 * openapi-backend's matchOperation, with each path template's regular expression
 * built once instead of on every call (it runs twice per request; profiled: a
 * tenth of a cached label's CPU). Same rules: an exact path wins, then templates
 * by specificity (fewest characters in parameters); a path with no operation for
 * the method is a 405, no path a 404 (thrown when strict, as the router does).
 */
function precompiledMatcher(router: Router, operations: Operation[]) {
  const byPath = new Map<string, Operation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  // Every path, literal ones too: a literal path without the method is a 405, not a 404.
  const templates = [...byPath.entries()]
    .map(([path, ops]) => ({ ops, specificity: path.replace(/\{.*?\}/g, '').length, pattern: templatePattern(path) }))
    .sort((a, b) => b.specificity - a.specificity);
  return (input: BackendRequest, strict?: boolean): Operation | undefined => {
    const req = router.normalizeRequest(input);
    const miss = (what: string) => {
      if (strict) throw Error(what);
      return undefined;
    };
    const path = router.normalizePath(req.path); // relative to apiRoot, which is '/' here
    const exact = byPath.get(path)?.find((op) => op.method === req.method);
    if (exact) return exact;
    const matching = templates.filter((t) => t.pattern.test(path));
    if (matching.length === 0) return miss('404-notFound: no route matches request');
    for (const t of matching) {
      const op = t.ops.find((o) => o.method === req.method);
      if (op) return op;
    }
    return miss('405-methodNotAllowed: this method is not registered for the route');
  };
}

/** `/items/{id}.json` as /^\/items\/[^/]+\.json$/ (literal parts escaped, a parameter is one segment). */
function templatePattern(path: string): RegExp {
  const parts = path.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/**
 * The methods a path answers, for `Allow`: its operations' methods, HEAD with GET.
 * Paths are matched on their shape (`{name}` matches one segment), the fewest templated segments first.
 */
function allowedMethods(definition: Document, path: string): string {
  // Concrete paths before templated ones (OpenAPI: `/print-jobs/images` is not a `/print-jobs/{jobId}`).
  const paths = Object.entries(definition.paths ?? {}).sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  for (const [template, item] of paths) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!pattern.test(path)) continue;
    const methods = METHODS.filter((m) => (item as Record<string, unknown>)?.[m]).map((m) => m.toUpperCase());
    return (methods.includes('GET') ? ['GET', 'HEAD', ...methods.filter((m) => m !== 'GET')] : methods).join(', ');
  }
  return 'GET, HEAD';
}

/** "query parameter template: must be equal to one of the allowed values (a, b)"; "body /lines/0/field: ...". */
function describeErrors(c: Context): string {
  return (c.validation.errors ?? [])
    .map((e) => {
      const body = /^\/?requestBody/.exec(e.instancePath);
      const where = body ? `body ${e.instancePath.slice(body[0].length) || '/'}` : e.instancePath.replace(/^\//, '').replace('/', ' parameter ');
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
