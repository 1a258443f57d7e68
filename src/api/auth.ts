/**
 * Bearer API tokens (RFC 6750). The token is looked up by its hash; the plaintext
 * never leaves this function and is never logged.
 */
import type { NextFunction, Request, Response } from 'express';
import { hashToken, parseToken, type Scope, type TokenInfo, type TokenStore } from '../records/index.js';
import { HttpProblem } from './problems.js';

const REALM = 'Bearer realm="labelmaker"';

/**
 * The bearer token in an Authorization header; throws the 401 problem when there is
 * none. Shared with the mock, which accepts any token but refuses none alike.
 * `inQuery`: the client sent `access_token` in the query string, which is never
 * accepted (URLs end up in logs, histories and Referer headers): say so.
 */
export function bearerToken(header: string | undefined, inQuery = false): string {
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  if (!match?.[1]) {
    const detail = inQuery
      ? "Tokens are not accepted in the query string (access_token); send it as 'Authorization: Bearer <API_KEY>'."
      : "Send an API token as 'Authorization: Bearer <API_KEY>'.";
    throw new HttpProblem('unauthorized', detail, { 'WWW-Authenticate': REALM });
  }
  return match[1];
}

export async function authenticate(header: string | undefined, tokens: TokenStore, inQuery = false): Promise<TokenInfo> {
  const token = bearerToken(header, inQuery);
  // Malformed tokens are rejected without a store lookup.
  const info = parseToken(token) ? await tokens.findActiveByHash(hashToken(token)) : undefined;
  if (!info) {
    throw new HttpProblem('unauthorized', 'The API token is unknown or has been revoked.', {
      'WWW-Authenticate': `${REALM}, error="invalid_token"`,
    });
  }
  return info;
}

export function requireScopes(token: TokenInfo, needed: readonly Scope[]): void {
  const missing = needed.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    const list = missing.map((s) => `'${s}'`).join(' and ');
    throw new HttpProblem('insufficient-scope', `This request needs the scope ${list}.`, {
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${needed.join(' ')}"`,
    });
  }
}

/** An integration key identify() verified, so the router need not look it up again. */
export interface PathKeyResult {
  key: string;
  token: TokenInfo;
}

/** The outcome of checking a request's credentials, kept on res.locals for the router. */
export type AuthResult = { token: TokenInfo } | { error: unknown };

/**
 * Checks credentials once, before rate limiting, so the limiter can key on a
 * verified token (a made-up token id must not buy a fresh budget). The router's
 * security handler then reports the stored result.
 */
export function identify(tokens: TokenStore, keyInPath: (path: string) => string | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    // An integration operation's key is in the path: verified here too, so each key gets its own budget.
    const pathKey = req.get('Authorization') === undefined ? keyInPath(req.baseUrl + req.path) : undefined;
    if (pathKey !== undefined) {
      authenticateKey(pathKey, tokens).then(
        (token) => {
          res.locals.auth = { token } satisfies AuthResult;
          res.locals.pathKey = { key: pathKey, token } satisfies PathKeyResult;
          next();
        },
        (error: unknown) => {
          res.locals.auth = { error } satisfies AuthResult;
          next();
        },
      );
      return;
    }
    authenticate(req.get('Authorization'), tokens, typeof req.query.access_token === 'string').then(
      (token) => {
        res.locals.auth = { token } satisfies AuthResult;
        next();
      },
      (error: unknown) => {
        res.locals.auth = { error } satisfies AuthResult;
        next();
      },
    );
  };
}

/** The path parameter an operation's `x-key-in-path` names: its credential travels in the URL (integrations). */
export function pathKeyParameter(operation: unknown): string | undefined {
  const name = (operation as Record<string, unknown> | undefined)?.['x-key-in-path'];
  return typeof name === 'string' ? name : undefined;
}

/** Refuses a malformed integration key (shared with the mock, which has no store). */
export function checkKeyFormat(key: string): void {
  if (!parseToken(key)) throw unknownKey();
}

function unknownKey(): HttpProblem {
  return new HttpProblem('unauthorized', 'The integration key in the URL is unknown or has been revoked; create one with `labelmaker tokens create --scopes integrations:render,integrations:print`.');
}

/**
 * An integration key from the URL path (Homebox and Grocy cannot send headers). It is
 * an API token from the same store (hashed, revocable); the operation's scopes decide
 * whether it may be used there, so an ordinary token gets a 403 here, and a key a 403
 * on every other operation.
 */
export async function authenticateKey(key: string, tokens: TokenStore): Promise<TokenInfo> {
  checkKeyFormat(key);
  const info = await tokens.findActiveByHash(hashToken(key));
  if (!info) throw unknownKey();
  return info;
}
