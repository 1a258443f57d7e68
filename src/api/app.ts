/**
 * The Express application: cross-cutting HTTP concerns (logging, CORS, rate
 * limits, content negotiation, operational endpoints) around the spec-built router.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store, TokenStore } from '../records/index.js';
import { identify } from './auth.js';
import { memoryRateLimiter, rateLimit, type RateLimiter } from './rate-limit.js';
import { corsPolicy } from './cors.js';
import { docsRouter } from './docs.js';
import { studioRouter } from './studio.js';
import type { ApiRouter } from './router.js';
import { sendProblem } from './problems.js';
import { requestLog } from './request-id.js';
import { useExchange } from './exchange.js';

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
  useExchange(app, { logger, accessLog: config.accessLog, requestTimeoutMs: config.requestTimeoutMs, cors: corsPolicy(config.corsAllowOrigins) });

  // The API's stages, in order, as one layer: Express's router costs a cached label a few
  // microseconds for every layer and mount it walks, so the API does not walk the docs' and
  // studio's routes, and its stages are not mounted one by one.
  const api = stages(
    (_req, res, next) => {
      if (draining()) return sendProblem(res, 'unavailable', 'The server is shutting down; retry shortly.', { 'Retry-After': '1' });
      next();
    },
    identify(tokens ?? store.tokens, router.keyInPath),
    rateLimit(rateLimiter ?? memoryRateLimiter(config.rateLimitPerMinute), logger),
    router.handle,
  );
  app.use((req, res, next) => (req.path.startsWith('/v1/') || req.path === '/v1' ? api(req, res, next) : next()));
  app.use(docsRouter(specYaml, specJson));
  app.use(studioRouter());
  // /healthz (getHealth) is an operation of the spec router like any other, so it is
  // routed, negotiated and validated exactly as the mock does; it is public (security: []).
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



/** Middleware run one after another as one: each calls the next, or answers, or passes an error on. */
function stages(...handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        void handler(req, res, step);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
