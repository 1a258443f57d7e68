/**
 * The server's router: the spec router (spec-router.ts, shared with the mock) with
 * real credentials (bearer tokens and scopes) and the operation handlers.
 */
import type { Request, Response } from 'express';
import type { Context, Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { ProblemError } from '../errors.js';
import { API_SCOPES, storeUnavailable, StoreUnavailableError, type Scope, type TokenInfo, type TokenStore } from '../records/index.js';
import { authenticate, authenticateKey, pathKeyParameter, requireScopes, type AuthResult } from './auth.js';
import { HttpProblem, sendProblem, sendProblemError } from './problems.js';
import { countStoreError } from '../metrics.js';
import { requestLog } from './request-id.js';
import { redactRequestTarget } from './redact.js';
import { createSpecRouter, type SpecRouter } from './spec-router.js';
import type { Handlers } from './operations.js';

export interface RouterDeps {
  definition: Document;
  tokens: TokenStore;
  /** One per operationId of the spec (the type lists them all). */
  handlers: Handlers;
  logger: Logger;
}

/** A handler as the spec router calls it, with the request it validated against the operation's schemas. */
type RoutedHandler = (c: Context, req: Request, res: Response) => Promise<void>;

/** The token a request was authenticated with (set before any operation handler runs). */
export function tokenOf(res: Response): TokenInfo {
  const token = res.locals.token;
  if (!token) throw new Error('tokenOf() called on an unauthenticated request');
  return token;
}

export type ApiRouter = SpecRouter;

export async function createApiRouter({ definition, tokens, handlers, logger }: RouterDeps): Promise<ApiRouter> {
  // The one mapper from errors to problems: an error that carries its problem (src/errors.ts) is
  // sent as it says; a driver's error that shows the store unavailable becomes the store's 503;
  // anything else is a bug, a 500 whose log line the request id (in the problem body) finds.
  const fail = (res: Response, err: unknown) => {
    const problem = err instanceof ProblemError ? err : storeUnavailable(err);
    if (!problem) {
      requestLog(res, logger).error({ err, path: redactRequestTarget(res.req.path) }, 'request failed');
      return sendProblem(res, 'internal-error', 'The request failed unexpectedly; quote its requestId when reporting it.');
    }
    if (problem instanceof StoreUnavailableError) countStoreError('request');
    if (problem.logAs) requestLog(res, logger).error({ err: problem.cause ?? problem, path: redactRequestTarget(res.req.path) }, problem.logAs);
    sendProblemError(res, problem);
  };

  return createSpecRouter(definition, {
    async authenticate(c, req, res) {
      // identify() in app.ts has usually checked the credentials already (for the rate limiter).
      const auth: AuthResult =
        res.locals.auth ??
        (await authenticate(header(c.request.headers.authorization), tokens, typeof req.query.access_token === 'string').then(
          (token) => ({ token }),
          (error: unknown) => ({ error }),
        ));
      if ('error' in auth) throw auth.error;
      res.locals.token = auth.token;
      return auth.token;
    },
    async run(operationId, c, req, res) {
      // The spec router has checked c against this operation's schemas, which are what its handler's type says (operations.ts).
      const handler = (handlers as Partial<Record<string, RoutedHandler>>)[operationId];
      if (!handler) throw new Error(`operation ${operationId} has no handler`);
      const keyParam = pathKeyParameter(c.operation);
      if (keyParam) {
        // An integration operation: `security: []` in OpenAPI terms (no header), its key in the path.
        const key = String((c.request.params as Record<string, unknown>)[keyParam]);
        const known = res.locals.pathKey; // verified by identify() in app.ts
        res.locals.token = known?.key === key ? known.token : await authenticateKey(key, tokens);
        requireScopes(tokenOf(res), scopesFor(c));
      } else if (!isPublic(c)) {
        requireApiToken(tokenOf(res));
        requireScopes(tokenOf(res), scopesFor(c));
      }
      await handler(c, req, res);
    },
    fail,
  });
}

/**
 * An integration key (only integration scopes) works on the integration operations
 * and nowhere else, not even where no scope is declared (getSession).
 */
function requireApiToken(token: TokenInfo): void {
  if (!token.scopes.some((s) => API_SCOPES.includes(s))) {
    throw new HttpProblem('insufficient-scope', 'An integration key works only on the integration operations (/v1/integrations/...); use an API token here.', {
      'WWW-Authenticate': `Bearer realm="labelmaker", error="insufficient_scope", scope="${API_SCOPES.join(' ')}"`,
    });
  }
}

/** An operation with `security: []` (getHealth) needs no credentials and has no scopes. */
function isPublic(c: Context): boolean {
  const security = (c.operation as { security?: unknown[] }).security;
  return Array.isArray(security) && security.length === 0;
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
