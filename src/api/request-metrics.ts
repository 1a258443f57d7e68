/**
 * Counts every answered request (operationId, status) and its duration for /metrics.
 * The spec router names the operation (res.locals.operationId); requests answered
 * before routing (rate limit, draining, malformed URL, unknown path) count as `none`.
 */
import type { RequestHandler } from 'express';
import { observeRequest } from '../metrics.js';

export function requestMetrics(): RequestHandler {
  return (_req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      observeRequest(res.locals.operationId, res.statusCode, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
