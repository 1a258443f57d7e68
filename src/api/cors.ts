/**
 * Cross-origin access for browser pages: one policy for the server (its origins
 * from CORS_ALLOW_ORIGINS) and the mock (any origin). Tokens travel in the
 * Authorization header, never in cookies, so `*` is safe: a page can only send
 * what it already holds.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import { addHeader } from './headers.js';
import type { CorsOrigins } from '../config.js';

/**
 * Response headers a page may read. The one list: add a header here when a
 * response starts carrying one that pages need.
 */
export const EXPOSED_HEADERS = ['ETag', 'Print-Job', 'Print-Printer', 'Label-Warnings', 'Sheet-Label-Warnings', 'Sheet-Offset', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Content-Disposition', 'Location', 'X-Request-Id'] as const;

/** Request headers a page may send (the spec's header parameters, Authorization, and X-Request-Id to correlate its calls). */
export const ALLOWED_HEADERS = ['Authorization', 'Accept', 'Content-Type', 'If-None-Match', 'If-Match', 'Idempotency-Key', 'X-Request-Id'] as const;

/**
 * CORS for one request: answers a preflight (204, allowed methods and headers, cached
 * 10 minutes; returns true) or sets Access-Control-* on the answer for an allowed
 * origin (returns false).
 */
export type CorsHeaders = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The policy, through the `cors` middleware. Outside a preflight it only sets headers
 * that depend on the origin alone, so it runs once per origin into a plain list that is
 * kept (bounded: a flood of made-up origins starts it afresh); setting them from the
 * list costs a cached label less than running the middleware each time.
 * `extraAllowedHeaders`: the mock also takes Prism's `Prefer`.
 */
export function corsPolicy(origins: CorsOrigins, extraAllowedHeaders: readonly string[] = []): CorsHeaders {
  const middleware = cors({
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: [...ALLOWED_HEADERS, ...extraAllowedHeaders],
    exposedHeaders: [...EXPOSED_HEADERS],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  const byOrigin = new Map<string, [string, string][]>();
  return (req, res) => {
    if (req.method === 'OPTIONS') {
      middleware(req, res, () => {});
      return res.writableEnded;
    }
    const origin = req.headers.origin ?? '';
    let headers = byOrigin.get(origin);
    if (!headers) {
      const collected = new Map<string, string>();
      const collector = {
        getHeader: (name: string) => collected.get(name.toLowerCase()),
        setHeader: (name: string, value: string | string[]) => void collected.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value),
      };
      middleware(req, collector as unknown as ServerResponse, () => {});
      headers = [...collected];
      if (byOrigin.size >= 256) byOrigin.clear();
      byOrigin.set(origin, headers);
    }
    for (const [name, value] of headers) addHeader(res, name, value);
    return false;
  };
}
