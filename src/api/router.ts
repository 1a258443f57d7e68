/**
 * The server's router: the spec router (spec-router.ts, shared with the mock) with
 * real credentials (bearer tokens and scopes) and the operation handlers.
 */
import type { Request, Response } from 'express';
import type { Context, Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { LabelFitError, SheetTimeoutError } from '../labels/index.js';
import { RenderUnavailableError } from '../labels/index.js';
import { JobNotCancellableError, JobNotFailedError } from '../printing/index.js';
import { API_SCOPES, isStoreUnavailable, unavailableDetail, type Scope, type TokenInfo, type TokenStore } from '../records/index.js';
import { authenticate, authenticateKey, pathKeyParameter, requireScopes, type AuthResult, type PathKeyResult } from './auth.js';
import { HttpProblem, sendProblem } from './problems.js';
import { countStoreError } from '../metrics.js';
import { requestLog } from './request-id.js';
import { redactRequestTarget } from './redact.js';
import { createSpecRouter, type SpecRouter } from './spec-router.js';

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

export type ApiRouter = SpecRouter;

export async function createApiRouter({ definition, tokens, handlers, logger }: RouterDeps): Promise<ApiRouter> {
  const fail = (res: Response, err: unknown) => {
    if (err instanceof HttpProblem) return sendProblem(res, err.slug, err.detail, err.headers, err.extensions);
    if (err instanceof LabelFitError) {
      // The record is fine but the chosen stock is too small for its codes: the client can pick another.
      return sendProblem(res, 'invalid-request', `${err.message}; choose a larger template.`);
    }
    // retryPrintJob on a job that is not failed: nothing changed.
    if (err instanceof JobNotFailedError) return sendProblem(res, 'job-not-failed', err.message);
    // cancelPrintJob on a job no longer waiting: nothing changed.
    if (err instanceof JobNotCancellableError) return sendProblem(res, 'job-not-cancellable', err.message);
    if (err instanceof SheetTimeoutError) {
      return sendProblem(res, 'unavailable', 'The labels took too long to make; ask for fewer per request. Nothing was printed.', { 'Retry-After': '5' });
    }
    if (err instanceof RenderUnavailableError) {
      requestLog(res, logger).error({ err }, 'render threads unavailable');
      return sendProblem(res, 'unavailable', `${err.message} Try again shortly.`, { 'Retry-After': String(err.retryAfterSeconds) });
    }
    if (isStoreUnavailable(err)) {
      countStoreError('request');
      requestLog(res, logger).error({ err, path: redactRequestTarget(res.req.path) }, 'store unavailable');
      return sendProblem(res, 'unavailable', unavailableDetail(err), { 'Retry-After': '5' });
    }
    // The request id (in the problem body and on the log line) finds the error in the log.
    requestLog(res, logger).error({ err, path: redactRequestTarget(res.req.path) }, 'request failed');
    sendProblem(res, 'internal-error', 'The request failed unexpectedly; quote its requestId when reporting it.');
  };

  return createSpecRouter(definition, {
    async authenticate(c, req, res) {
      // identify() in app.ts has usually checked the credentials already (for the rate limiter).
      const auth: AuthResult =
        (res.locals.auth as AuthResult | undefined) ??
        (await authenticate(header(c.request.headers.authorization), tokens, typeof req.query.access_token === 'string').then(
          (token) => ({ token }),
          (error: unknown) => ({ error }),
        ));
      if ('error' in auth) throw auth.error;
      res.locals.token = auth.token;
      return auth.token;
    },
    async run(operationId, c, req, res) {
      const handler = handlers[operationId];
      if (!handler) throw new Error(`operation ${operationId} has no handler`);
      const keyParam = pathKeyParameter(c.operation);
      if (keyParam) {
        // An integration operation: `security: []` in OpenAPI terms (no header), its key in the path.
        const key = String((c.request.params as Record<string, unknown>)[keyParam]);
        const known = res.locals.pathKey as PathKeyResult | undefined; // verified by identify() in app.ts
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
