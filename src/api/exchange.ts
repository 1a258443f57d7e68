/**
 * The first stage of every request, whatever it asks for: its id, its access-log line
 * and metrics when it finishes, its time-out, and the headers every answer carries
 * (security headers, CORS), and a 400 for a URL with a malformed percent-escape, so
 * nothing further down has to cope with one. One Express middleware instead of one per concern: each
 * layer costs a cached label a little, and they always run together.
 */
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AccessLog } from '../config.js';
import { observeRequest } from '../metrics.js';
import type { CorsHeaders } from './cors.js';
import { addHeader, writeCollectedHeaders } from './headers.js';
import { redactRequestTarget } from './redact.js';
import { REQUEST_ID_HEADER, requestIdFrom, requestLog } from './request-id.js';
import { sendProblem } from './problems.js';

/** Headers on every answer. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' } as const;

const SECURITY_HEADER_LIST = Object.entries(SECURITY_HEADERS);

export interface ExchangeOptions {
  logger: Logger;
  /** ACCESS_LOG (config.ts): `errors` logs answers of 400 and up, `all` every answer. */
  accessLog: AccessLog;
  requestTimeoutMs: number;
  /** CORS for the request's origin (cors.ts): a preflight is answered there. */
  cors: CorsHeaders;
}

/** The app's first stage (exchange) and the writeHead that writes the headers it and later stages collect (headers.ts). */
export function useExchange(app: Express, options: ExchangeOptions): void {
  writeCollectedHeaders(app);
  app.use(exchange(options));
}

function exchange({ logger, accessLog, requestTimeoutMs, cors }: ExchangeOptions): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    const id = requestIdFrom(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.locals.logger = logger;
    // Written with the status line (headers.ts), not set one by one.
    addHeader(res, REQUEST_ID_HEADER, id);
    for (const [name, value] of SECURITY_HEADER_LIST) addHeader(res, name, value);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // The spec router names the operation; answers before routing (rate limit, draining, unknown path) count as `none`.
      observeRequest(res.locals.operationId as string | undefined, res.statusCode, seconds);
      if (accessLog === 'all' || res.statusCode >= 400) {
        // Headers are never logged (they carry the token); credentials in the URL are redacted.
        const entry = { method: req.method, url: redactRequestTarget(req.originalUrl).slice(0, 512), status: res.statusCode, ms: Math.round(seconds * 1e4) / 10, token: res.locals.token?.id };
        requestLog(res, logger).info(entry, 'request');
      }
    });
    // A response that stalls (a hung store, say) ends with a 503 instead of hanging the client.
    res.setTimeout(requestTimeoutMs, () => {
      if (!res.headersSent) sendProblem(res, 'unavailable', 'The request timed out; retry shortly.', { 'Retry-After': '5' });
      else res.destroy();
    });
    if (cors(req, res)) return; // a preflight, answered
    const malformed = malformedPart(req.originalUrl);
    if (malformed) {
      return sendProblem(res, 'invalid-request', `The request ${malformed} has a malformed percent-escape: '%' must start %XX, and the escaped bytes must be UTF-8.`);
    }
    next();
  };
}

/** 'path' or 'query' when that part of the URL has a malformed percent-escape (`%` without two hex digits, or bytes that are not UTF-8). */
function malformedPart(url: string): 'path' | 'query' | undefined {
  // Only a '%' starts an escape: a URL without one (most) cannot have a malformed one, and is not decoded.
  if (!url.includes('%')) return undefined;
  const q = url.indexOf('?');
  try {
    decodeURIComponent(q < 0 ? url : url.slice(0, q));
  } catch {
    return 'path';
  }
  if (q < 0) return undefined;
  try {
    decodeURIComponent(url.slice(q + 1).replaceAll('+', ' '));
  } catch {
    return 'query';
  }
  return undefined;
}
