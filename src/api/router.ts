/**
 * The router is built from the spec: openapi-backend matches operationIds to
 * handlers, checks the bearer token and validates parameters, failing closed
 * (strict mode with every special handler registered).
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { LabelFitError } from '../labels/index.js';
import { isStoreUnavailable, unavailableDetail } from '../records/errors.js';
import type { Scope, TokenInfo, TokenStore } from '../records/types.js';
import { addFormats } from './ajv-formats.js';
import { authenticate, requireScopes, type AuthResult } from './auth.js';
import { HttpProblem, sendProblem } from './problems.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (c: any, req: Request, res: Response) => Promise<void>;

export interface RouterDeps {
  definition: Document;
  tokens: TokenStore;
  handlers: Record<string, Handler>;
  logger: Logger;
}

/** The token a request was authenticated with (set before any operation handler runs). */
export function tokenOf(res: Response): TokenInfo {
  const token = res.locals.token as TokenInfo | undefined;
  if (!token) throw new Error('tokenOf() called on an unauthenticated request');
  return token;
}

export interface ApiRouter {
  /** Express middleware: routes, authenticates, validates and runs the operation. */
  handle: (req: Request, res: Response, next: NextFunction) => void;
  /** Media types of the matched operation's success responses (for 406); undefined off the spec. */
  mediaTypes: (req: Request) => string[] | undefined;
}

export async function createApiRouter({ definition, tokens, handlers, logger }: RouterDeps): Promise<ApiRouter> {
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    // Query strings arrive as text; coercion turns print=true into a real boolean.
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    // The spec uses standard formats (uuid, date-time, uri-reference): validate them, don't ignore them.
    customizeAjv: (ajv) => addFormats(ajv),
  });

  const fail = (res: Response, err: unknown) => {
    if (err instanceof HttpProblem) return sendProblem(res, err.slug, err.detail, err.headers);
    if (err instanceof LabelFitError) {
      // The record is fine but the chosen stock is too small for its codes: the client can pick another.
      return sendProblem(res, 'invalid-request', `${err.message}; choose a larger template.`);
    }
    if (isStoreUnavailable(err)) {
      logger.error({ err, path: res.req.path }, 'store unavailable');
      return sendProblem(res, 'unavailable', unavailableDetail(err), { 'Retry-After': '5' });
    }
    const ref = randomUUID().slice(0, 8);
    logger.error({ err, ref, path: res.req.path }, 'request failed');
    sendProblem(res, 'internal-error', `The label could not be produced. Reference: ${ref}.`);
  };

  api.registerSecurityHandler('bearerAuth', async (c: Context, _req: Request, res: Response) => {
    // identify() in app.ts has usually checked the credentials already (for the rate limiter).
    const auth: AuthResult =
      (res.locals.auth as AuthResult | undefined) ??
      (await authenticate(header(c.request.headers.authorization), tokens).then(
        (token) => ({ token }),
        (error: unknown) => ({ error }),
      ));
    if ('error' in auth) throw auth.error;
    res.locals.token = auth.token;
    return auth.token;
  });

  for (const [operationId, handler] of Object.entries(handlers)) {
    api.register(operationId, async (c: Context, req: Request, res: Response) => {
      try {
        requireScopes(tokenOf(res), scopesFor(c));
        await handler(c, req, res);
      } catch (err) {
        fail(res, err);
      }
    });
  }

  api.register({
    unauthorizedHandler: (c: Context, _req: Request, res: Response) => {
      // A credentials problem (401) or a failing token store (503/500).
      fail(res, (c.security?.bearerAuth as { error?: unknown } | undefined)?.error);
    },
    validationFail: (c: Context, _req: Request, res: Response) => {
      const details = (c.validation.errors ?? []).map((e) => {
        const where = e.instancePath.replace(/^\//, '').replace('/', ' parameter ');
        return `${where || 'request'}: ${e.message}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as string[]).join(', ')})` : ''}`;
      });
      sendProblem(res, 'invalid-request', details.join('; ') || 'The request is not valid.');
    },
    notFound: (_c: Context, req: Request, res: Response) => {
      sendProblem(res, 'not-found', `There is no operation at ${req.path}.`);
    },
    methodNotAllowed: (_c: Context, req: Request, res: Response) => {
      sendProblem(res, 'method-not-allowed', `${req.method} is not allowed here; use GET.`, { Allow: 'GET' });
    },
    notImplemented: (c: Context, _req: Request, res: Response) => {
      fail(res, new Error(`operation ${c.operation?.operationId} has no handler`));
    },
  });

  await api.init();

  // operationId -> media types of its 2xx responses, read once from the spec.
  const successTypes = new Map(
    api.getOperations().map((op) => [
      op.operationId,
      Object.entries(op.responses ?? {})
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, r]) => Object.keys((r as { content?: object }).content ?? {})),
    ]),
  );
  // Passing Express's req directly would lose req.path under coerceTypes (see toolchain notes).
  const asRequest = (req: Request) => ({ method: req.method, path: req.baseUrl + req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body: undefined });

  return {
    handle: (req, res, next) => {
      api.handleRequest(asRequest(req), req, res).catch(next);
    },
    mediaTypes: (req) => {
      const op = api.matchOperation(asRequest(req));
      return op ? successTypes.get(op.operationId) : undefined;
    },
  };
}

/** Scopes an operation needs: its `x-required-scopes`, plus `labels:print` for print=true. */
function scopesFor(c: Context): Scope[] {
  const declared = ((c.operation as unknown as Record<string, unknown>)['x-required-scopes'] as Scope[] | undefined) ?? [];
  const printing = (c.request.query as Record<string, unknown>).print === true;
  return printing ? [...declared, 'labels:print'] : declared;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
