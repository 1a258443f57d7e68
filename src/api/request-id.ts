/**
 * Request ids: every request gets one, so a user's error report can be found in
 * the logs. An incoming `X-Request-Id` (a proxy's, or the client's) is kept when it
 * is short, made of safe characters and not a token; anything else is replaced by a fresh id.
 * The id goes back in the `X-Request-Id` response header, in every problem body
 * (`requestId`, see problems.ts) and on every log line of the request.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
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

/**
 * The request's logger: a child of the server's (set by exchange.ts) whose lines carry
 * the request id, made on first use since most requests log nothing; `fallback` outside a request.
 */
export function requestLog(res: Response, fallback: Logger): Logger {
  const locals = res.locals;
  if (!locals.log && locals.requestId) locals.log = (locals.logger ?? fallback).child({ reqId: locals.requestId });
  return locals.log ?? fallback;
}
