/**
 * The Express application: cross-cutting HTTP concerns (logging, CORS, rate
 * limits, content negotiation, operational endpoints) around the spec-built router.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { AccessLog, Config } from '../config.js';
import type { Store, TokenStore } from '../records/index.js';
import { identify } from './auth.js';
import { memoryRateLimiter, rateLimit, type RateLimiter } from './rate-limit.js';
import { corsPolicy } from './cors.js';
import { redactRequestTarget } from './redact.js';
import { rejectMalformedUrls } from './spec-router.js';
import { docsRouter } from './docs.js';
import { studioRouter } from './studio.js';
import type { ApiRouter } from './router.js';
import { sendProblem } from './problems.js';
import { assignRequestId, requestLog } from './request-id.js';
import { requestMetrics } from './request-metrics.js';

export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  specYaml: string;
  specJson: string;
  router: ApiRouter;
  /** True once shutdown has begun: new label requests get a 503. */
  draining: () => boolean;
  /** Where request budgets are counted (rate-limit.ts); default: this instance's memory. */
  rateLimiter?: RateLimiter;
  /** Where bearer tokens are checked (default: the store's; the server passes a cached view, token-cache.ts). */
  tokens?: TokenStore;
  /** The CORS middleware (default: corsPolicy of CORS_ALLOW_ORIGINS); the server shares one with the label fast lane. */
  cors?: express.RequestHandler;
}

/** Headers on every answer. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' } as const;

/** Requests the label fast lane handed over past their time-out. */
const expired = new WeakSet<object>();
export function expire(req: object): void {
  expired.add(req);
}

export function createApp({ config, store, logger, specYaml, specJson, router, draining, rateLimiter, tokens, cors }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false); // label ETags are computed from the PNG bytes in label-response.ts

  app.use(assignRequestId(logger));
  app.use(requestMetrics());
  app.use(accessLog(logger, config.accessLog));
  app.use((_req, res, next) => {
    // A response that stalls (a hung store, say) ends with a 503 instead of hanging the client.
    res.setTimeout(config.requestTimeoutMs, () => {
      if (!res.headersSent) timedOut(res);
      else res.destroy();
    });
    next();
  });
  app.use((_req, res, next) => {
    res.set(SECURITY_HEADERS);
    next();
  });
  // Always on: with no allowed origins, preflights still get a 204, just without an Allow-Origin.
  app.use(cors ?? corsPolicy(config.corsAllowOrigins));
  app.use((req, res, next) => {
    // The label fast lane ran out of time on this request (label-fast-path.ts): answer as the time-out above would.
    if (expired.has(req)) return timedOut(res);
    next();
  });
  app.use(rejectMalformedUrls());

  // /healthz (getHealth) is an operation of the spec router like any other, so it is
  // routed, negotiated and validated exactly as the mock does; it is public (security: []).
  app.use(docsRouter(specYaml, specJson));
  app.use(studioRouter());

  app.use('/v1', (_req, res, next) => {
    if (draining()) return sendProblem(res, 'unavailable', 'The server is shutting down; retry shortly.', { 'Retry-After': '1' });
    next();
  });
  app.use('/v1', identify(tokens ?? store.tokens));
  app.use('/v1', rateLimit(rateLimiter ?? memoryRateLimiter(config.rateLimitPerMinute), logger));
  app.use(router.handle);

  // Last resort: malformed requests Express itself rejects (e.g. bad percent-encoding), and bugs.
  app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    if (err.status && err.status >= 400 && err.status < 500) {
      return sendProblem(res, 'invalid-request', err.message);
    }
    requestLog(res, logger).error({ err }, 'unhandled error');
    sendProblem(res, 'internal-error', 'Unexpected error.');
  });
  return app;
}


const timedOut = (res: Response) => sendProblem(res, 'unavailable', 'The request timed out; retry shortly.', { 'Retry-After': '5' });

/** A request's access-log fields (the label fast lane writes the same line). Headers are never logged (they carry the token); credentials in the URL are redacted. */
export function accessEntry(method: string, target: string, status: number, ms: number, tokenId: string | undefined) {
  return { method, url: redactRequestTarget(target).slice(0, 512), status, ms: Math.round(ms * 10) / 10, token: tokenId };
}

/** Whether an answer gets an access-log line (ACCESS_LOG, config.ts). */
export const logsAccess = (mode: AccessLog, status: number) => mode === 'all' || status >= 400;

function accessLog(logger: Logger, mode: AccessLog) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      if (!logsAccess(mode, res.statusCode)) return;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      requestLog(res, logger).info(accessEntry(req.method, req.originalUrl, res.statusCode, ms, res.locals.token?.id), 'request');
    });
    next();
  };
}
