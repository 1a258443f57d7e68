/**
 * RFC 9457 problem responses. Every error the API sends is built here; the problem
 * types (slug -> status, title) are catalogued in src/errors.ts.
 */
import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { PROBLEM_TYPES, ProblemError, type ProblemSlug } from '../errors.js';
import { redactRequestTarget } from './redact.js';

export type Problem = components['schemas']['Problem'];

export { PROBLEM_TYPES, ProblemError, type ProblemSlug } from '../errors.js';

/** A problem the API layer raises itself (a request it refuses); domain errors carry theirs (src/errors.ts). */
export class HttpProblem extends ProblemError {
  constructor(slug: ProblemSlug, detail: string, headers: Record<string, string> = {}, extensions: Record<string, unknown> = {}) {
    super(slug, detail, { headers, extensions });
  }
}

export function problem(slug: ProblemSlug, detail: string, instance?: string): Problem {
  const { status, title } = PROBLEM_TYPES[slug];
  const body: Problem = { type: `/problems/${slug}`, title, status, detail: detail.slice(0, 2000) };
  if (instance) body.instance = asUriReference(instance).slice(0, 2048).replace(/%[0-9A-Fa-f]?$/, '');
  return body;
}

/**
 * The request target as a valid URI reference (the spec's `instance` format): Node
 * accepts request targets with characters a URI may not hold (`"`, `{`, `|`, a stray
 * `%`); those are percent-encoded, so a problem about a malformed URL is well-formed.
 */
export function asUriReference(target: string): string {
  return target.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu, (c) => encodeURIComponent(c));
}

/** A JSON body with its bare media type: neither application/json nor problem+json defines a charset. */
export function sendJson(res: Response, status: number, body: unknown, type = 'application/json'): void {
  // setHeader, not res.set/res.type: Express appends `; charset=utf-8` to JSON types itself.
  res.status(status).setHeader('Content-Type', type);
  res.send(Buffer.from(JSON.stringify(body)));
}

/** The problem for this request: its target as `instance`, its id (request-id.ts) as `requestId`. */
export function problemFor(res: Response, slug: ProblemSlug, detail: string): Problem {
  // The target without credentials (an integration key is part of the path).
  const body = problem(slug, detail, redactRequestTarget(res.req.originalUrl));
  const requestId = res.locals.requestId;
  if (requestId) body.requestId = requestId;
  return body;
}

export function sendProblem(
  res: Response,
  slug: ProblemSlug,
  detail: string,
  headers: Record<string, string> = {},
  extensions: Record<string, unknown> = {},
): void {
  const body = { ...problemFor(res, slug, detail), ...extensions };
  res.set(headers);
  sendJson(res, body.status, body, 'application/problem+json');
}

/** Sends the problem an error carries: its type, detail, headers and extensions. */
export function sendProblemError(res: Response, err: ProblemError): void {
  sendProblem(res, err.problem, err.detail, err.headers, err.extensions);
}
