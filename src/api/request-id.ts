/**
 * Request ids: every request gets one, so a user's error report can be found in
 * the logs. An incoming `X-Request-Id` (a proxy's, or the client's) is kept when it
 * is short, made of safe characters and not a token; anything else is replaced by a fresh id.
 * The id goes back in the `X-Request-Id` response header, in every problem body
 * (`requestId`, see problems.ts) and on every log line of the request.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { looksLikeToken } from './redact.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What an id may be: what proxies generate (UUIDs, hex, base64url, dotted trace ids), nothing that can break a log line. */
const SAFE_ID = /^[A-Za-z0-9._:+=@/-]{1,128}$/;

/**
 * The incoming id when it is safe to keep, else a new UUID. A token sent as the id
 * (a misconfigured client, or a probe for what gets logged) is replaced: the id is on
 * every log line of the request and in its problems.
 */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  const value = Array.isArray(incoming) ? undefined : incoming?.trim();
  return value && SAFE_ID.test(value) && !looksLikeToken(value) ? value : randomUUID();
}

/** Sets `res.locals.requestId` and the response header; with a logger, `res.locals.log` is its child that carries the id. */
export function assignRequestId(logger?: Logger): RequestHandler {
  return (req, res, next) => {
    const id = requestIdFrom(req.headers['x-request-id']);
    res.locals.requestId = id;
    if (logger) res.locals.log = logger.child({ reqId: id });
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The request's logger (its lines carry the request id), or `fallback` outside a request. */
export function requestLog(res: Response, fallback: Logger): Logger {
  return res.locals.log ?? fallback;
}
