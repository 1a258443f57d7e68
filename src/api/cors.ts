/**
 * Cross-origin access for browser pages: one policy for the server (its origins
 * from CORS_ALLOW_ORIGINS) and the mock (any origin). Tokens travel in the
 * Authorization header, never in cookies, so `*` is safe: a page can only send
 * what it already holds.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import type { CorsOrigins } from '../config.js';

/**
 * Response headers a page may read. The one list: add a header here when a
 * response starts carrying one that pages need.
 */
export const EXPOSED_HEADERS = ['ETag', 'Print-Job', 'Label-Warnings', 'Sheet-Label-Warnings', 'Sheet-Offset', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Content-Disposition', 'Location', 'X-Request-Id'] as const;

/** Request headers a page may send (the spec's header parameters, Authorization, and X-Request-Id to correlate its calls). */
export const ALLOWED_HEADERS = ['Authorization', 'Accept', 'Content-Type', 'If-None-Match', 'If-Match', 'Idempotency-Key', 'X-Request-Id'] as const;

/**
 * Answers preflights (204, allowed methods and headers, cached 10 minutes) and adds
 * Access-Control-* to responses for allowed origins. `extraAllowedHeaders`: the
 * mock also takes Prism's `Prefer`.
 */
export function corsPolicy(origins: CorsOrigins, extraAllowedHeaders: readonly string[] = []): RequestHandler {
  return cors({
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: [...ALLOWED_HEADERS, ...extraAllowedHeaders],
    exposedHeaders: [...EXPOSED_HEADERS],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}
