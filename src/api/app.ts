/**
 * The Express application: cross-cutting HTTP concerns (logging, CORS, rate
 * limits, content negotiation, operational endpoints) around the spec-built router.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store, TokenStore } from '../records/index.js';
import { identify } from './auth.js';
import { memoryRateLimiter, rateLimit, type RateLimiter } from './rate-limit.js';
import { corsPolicy } from './cors.js';
import { rejectMalformedUrls } from './spec-router.js';
import { docsRouter } from './docs.js';
import { studioRouter } from './studio.js';
import type { ApiRouter } from './router.js';
import { sendProblem } from './problems.js';
import { requestLog } from './request-id.js';
import { exchange } from './exchange.js';

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
}

export function createApp({ config, store, logger, specYaml, specJson, router, draining, rateLimiter, tokens }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false); // label ETags are computed from the PNG bytes in label-response.ts

  // Every request, whatever it asks for, passes these stages in this order: one pipeline.
  app.use(exchange({ logger, accessLog: config.accessLog, requestTimeoutMs: config.requestTimeoutMs, cors: corsPolicy(config.corsAllowOrigins) }));
  app.use(rejectMalformedUrls());

  // /healthz (getHealth) is an operation of the spec router like any other, so it is
  // routed, negotiated and validated exactly as the mock does; it is public (security: []).
  app.use(docsRouter(specYaml, specJson));
  app.use(studioRouter());

  app.use('/v1', (_req, res, next) => {
    if (draining()) return sendProblem(res, 'unavailable', 'The server is shutting down; retry shortly.', { 'Retry-After': '1' });
    next();
  });
  app.use('/v1', identify(tokens ?? store.tokens, router.keyInPath));
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


