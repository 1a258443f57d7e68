/**
 * Requests checked against the spec: the one request validator, used by the
 * server (router.ts) and by the mock (scripts/mock.ts), so both answer every
 * request, valid or not, with the same status and problem.
 *
 * openapi-backend, through its public API, reads the spec (init: references resolved,
 * request validators compiled), parses a request for an operation and validates it.
 * The pipeline around those calls is ours, a few lines: its handleRequest looks the
 * operation up again through the router, whose every lookup rebuilds all the spec's
 * operation objects and regular expressions (profiled: a third of a cached label's CPU),
 * and it would let a request through to the operation if a special handler were
 * missing. Here routing is a table compiled once from the spec's paths, and a
 * request that is not authorized or not valid never reaches the operation.
 *
 * Order, for both: well-formed URL (400) -> route (404, 405) -> Accept (406) ->
 * credentials (401) -> parameters (400) -> the operation.
 */
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { OpenAPIBackend, type Context, type Document, type Operation } from 'openapi-backend';
import { addFormats } from './ajv-formats.js';
import { pathKeyParameter } from './auth.js';
import { bodyRuleOf, readBody, type BodyRule } from './bodies.js';
import { sendProblem } from './problems.js';
import { redactRequestTarget } from './redact.js';
import { compileRequestValidator, type RequestParts } from './request-validator.js';

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
  /** The credential in a request's path, where the spec's `x-key-in-path` puts one (integrations); read before routing, for the rate limit. */
  keyInPath(path: string): string | undefined;
  /**
   * Checks what did not come in a request against an operation's schemas as if it had (the
   * printers of the configuration file, as putPrinter's path and body): the problems, as a
   * 400 would describe them, or undefined when it is valid.
   */
  checkRequest(operationId: string, request: { path: string; body: unknown }): string | undefined;
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

  await api.init();
  // Every request validator now, not on an operation's first request: a spec the
  // validator cannot compile stops the start, and first requests are not slow.
  api.validator.preCompileRequestValidators();
  // The spec's operations (references resolved, path-level parameters and the global
  // security merged in), once: the definition is final after init().
  const operations = api.getOperations();
  const operationIds = operations.map((op) => op.operationId!);
  const validators = new Map(operations.map((op) => [op.operationId!, compileRequestValidator(api, op)]));
  const match = pathMatcher(operations);
  const keyPatterns = operations.flatMap((op) => {
    const name = pathKeyParameter(op);
    return name ? [templatePattern(op.path, name)] : [];
  });

  const methodNotAllowed = (req: Request, res: Response, path: string) => {
    // The methods of the path this request matched (HEAD with GET, RFC 9110).
    const allow = allowedMethods(definition, path);
    sendProblem(res, 'method-not-allowed', `${req.method} is not allowed here; use ${allow.replace(/, ([A-Z]+)$/, ' or $1')}.`, { Allow: allow });
  };

  /** Credentials, then parameters and body, then the operation: each refusal ends the request. */
  const run = async (op: Operation, request: RequestParts & { method: string }, req: Request, res: Response): Promise<void> => {
    // Until the request is validated, the credentials check needs only its headers.
    const c = { api, operation: op, request: { method: request.method, path: request.path, headers: request.headers, query: request.query, params: {}, cookies: {}, body: request.body, requestBody: request.body } } as Context;
    // OpenAPI security: any one requirement object, all of whose schemes are satisfied.
    // bearerAuth is the spec's one scheme; any other is never satisfied (fails closed).
    const requirements = (op.security ?? []) as Record<string, unknown>[];
    if (requirements.length > 0) {
      const needsBearer = requirements.some((r) => 'bearerAuth' in r);
      const bearer = needsBearer
        ? await hooks.authenticate(c, req, res).then(
            (token) => ({ token, error: token ? undefined : new Error('the credentials check returned nothing') }),
            (error: unknown) => ({ token: undefined, error: error ?? new Error('the credentials check failed') }),
          )
        : undefined;
      const authorized = requirements.some((r) => Object.keys(r).every((scheme) => scheme === 'bearerAuth' && bearer && !bearer.error));
      c.security = { authorized, ...(bearer ? { bearerAuth: bearer.error ? { error: bearer.error } : bearer.token } : {}) };
      // A credentials problem (401), or a failing token store (503/500).
      if (!authorized) return hooks.fail(res, bearer?.error ?? new Error(`${op.operationId}: no security scheme of the spec applies`));
    }
    const checked = validators.get(op.operationId!)!(request);
    c.validation = { valid: checked.errors === null, errors: checked.errors };
    if (checked.errors) {
      if (res.locals.bodyNotJson) return sendProblem(res, 'invalid-request', 'The request body is not valid JSON.');
      return sendProblem(res, 'invalid-request', describeErrors(c.validation.errors) || 'The request is not valid.');
    }
    c.request.params = checked.params as Context['request']['params'];
    c.request.query = checked.query as Context['request']['query'];
    // HEAD is safe (RFC 9110): it must never print, so it cannot stand in for GET here.
    if (req.method === 'HEAD' && (c.request.query as Record<string, unknown>).print === true) {
      return sendProblem(res, 'invalid-request', 'HEAD never prints: send print=true with GET.');
    }
    return hooks.run(op.operationId!, c, req, res).catch((err: unknown) => hooks.fail(res, err));
  };

  // Per operation, read once from the spec: its query parameter names, the media types of its 2xx responses, and whether it takes a body.
  const concretePaths = new Set(Object.keys(definition.paths ?? {}).filter((p) => !p.includes('{')));
  const queryNames = new Map<string, Set<string>>();
  // Per operation that takes a body: its media types and size limit (bodies.ts), from the dereferenced operations.
  const bodyRules = new Map<string, BodyRule>();
  const successTypes = new Map<string, string[]>();
  for (const op of operations) {
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
  // request with a spread, which drops Express's req.path getter (a prototype getter) and
  // with it the path and its parameters.
  const asRequest = (req: Request, op: Operation): RequestParts & { method: string } => ({
    method: req.method === 'HEAD' ? 'GET' : req.method,
    path: req.baseUrl + req.path,
    // Unknown query parameters (cache-busters, tracking) are ignored, as the spec documents.
    query: pick(req.query as Record<string, string>, queryNames.get(op.operationId!)!),
    headers: req.headers,
    body: req.body as unknown,
  });

  return {
    operationIds,
    checkRequest: (operationId, { path, body }) => {
      const op = operations.find((o) => o.operationId === operationId);
      if (!op) throw new Error(`the spec has no operation ${operationId}`);
      const validation = api.validateRequest({ method: op.method, path, headers: { 'content-type': 'application/json' }, query: {}, body }, op);
      return validation.errors ? describeErrors(validation.errors) || 'not valid' : undefined;
    },
    keyInPath: (path) => {
      for (const pattern of keyPatterns) {
        const key = pattern.exec(path)?.[1];
        if (key !== undefined) return key;
      }
      return undefined;
    },
    handle: (req: Request, res: Response, next: NextFunction) => {
      const path = req.baseUrl + req.path;
      const op = match(req.method === 'HEAD' ? 'get' : req.method.toLowerCase(), path);
      if (op === 404) return sendProblem(res, 'not-found', `There is no operation at ${redactRequestTarget(req.path)}.`);
      if (op === 405) return methodNotAllowed(req, res, path);
      // A concrete path wins over a templated one (OpenAPI): GET /print-jobs/images is not getPrintJob.
      if (op.path.includes('{') && concretePaths.has(path)) return methodNotAllowed(req, res, path);
      res.locals.operationId = op.operationId; // for the request metrics
      // Errors are problem+json, so a client must accept the operation's media type or problem+json.
      const types = successTypes.get(op.operationId!);
      if (types && req.get('Accept') && !req.accepts([...types, 'application/problem+json'])) {
        return sendProblem(res, 'not-acceptable', `This operation returns ${types.join(' or ')} (or application/problem+json on errors).`);
      }
      const request = asRequest(req, op);
      const rule = bodyRules.get(op.operationId!);
      if (rule) {
        // The body's size and media type are checked as it arrives; whether it is JSON, after the credentials (validationFail).
        return readBody(req, res, rule, (body) => {
          request.body = body;
          run(op, request, req, res).catch(next);
        });
      }
      run(op, request, req, res).catch(next);
    },
  };
}

/** The entries of `query` whose names are in `known`. */
function pick(query: Record<string, string>, known: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in query) if (known.has(name)) out[name] = query[name]!;
  return out;
}

/**
 * The spec's paths compiled once into a matcher: a method and a path (relative to the
 * server's root) to its operation, 404 when no path matches, 405 when a path matches
 * but has no operation for the method. The rules are openapi-backend's router's: an
 * exact path wins, then templates by specificity (fewest characters in parameters).
 */
function pathMatcher(operations: Operation[]): (method: string, path: string) => Operation | 404 | 405 {
  const byPath = new Map<string, Operation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  // Every path, literal ones too: a literal path without the method is a 405, not a 404.
  const templates = [...byPath.entries()]
    .map(([path, ops]) => ({ ops, specificity: path.replace(/\{.*?\}/g, '').length, pattern: templatePattern(path) }))
    .sort((a, b) => b.specificity - a.specificity);
  return (method, path) => {
    const exact = byPath.get(path)?.find((op) => op.method === method);
    if (exact) return exact;
    let matched = false;
    for (const t of templates) {
      if (!t.pattern.test(path)) continue;
      matched = true;
      const op = t.ops.find((o) => o.method === method);
      if (op) return op;
    }
    return matched ? 405 : 404;
  };
}

/**
 * `/items/{id}.json` as /^\/items\/[^/]+\.json$/ (literal parts escaped, a parameter is one segment);
 * with `capture`, that parameter is the pattern's one group.
 */
function templatePattern(path: string, capture?: string): RegExp {
  const escape = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = path.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => (name === undefined ? escape(part) : name === capture ? '([^/]+)' : '[^/]+'));
  return new RegExp(`^${pattern}$`);
}

/**
 * The methods a path answers, for `Allow`: its operations' methods, HEAD with GET.
 * Paths are matched on their shape (`{name}` matches one segment), the fewest templated segments first.
 */
function allowedMethods(definition: Document, path: string): string {
  // Concrete paths before templated ones (OpenAPI: `/print-jobs/images` is not a `/print-jobs/{jobId}`).
  const paths = Object.entries(definition.paths ?? {}).sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  for (const [pathTemplate, item] of paths) {
    const pattern = new RegExp(`^${pathTemplate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!pattern.test(path)) continue;
    const methods = METHODS.filter((m) => (item as Record<string, unknown>)?.[m]).map((m) => m.toUpperCase());
    return (methods.includes('GET') ? ['GET', 'HEAD', ...methods.filter((m) => m !== 'GET')] : methods).join(', ');
  }
  return 'GET, HEAD';
}

/** "query parameter template: must be equal to one of the allowed values (a, b)"; "body /lines/0/field: ...". */
function describeErrors(errors: Context['validation']['errors']): string {
  return (errors ?? [])
    .map((e) => {
      const body = /^\/?requestBody/.exec(e.instancePath);
      const where = body ? `body ${e.instancePath.slice(body[0].length) || '/'}` : e.instancePath.replace(/^\//, '').replace('/', ' parameter ');
      const allowed =
        e.params && 'allowedValues' in e.params
          ? ` (${(e.params.allowedValues as string[]).join(', ')})`
          : // The field a client sent that the schema does not have: named, so a typo or an unsupported field is found.
            e.params && 'additionalProperty' in e.params
            ? ` (${String(e.params.additionalProperty)})`
            : '';
      return `${where || 'request'}: ${e.message}${allowed}`;
    })
    .join('; ');
}
