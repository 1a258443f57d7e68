/**
 * RFC 9457 problem responses. Every error the API sends is built here, so the
 * catalogue below is the complete list of problem types a client can meet.
 */
import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { redactRequestTarget } from './redact.js';

export type Problem = components['schemas']['Problem'];

/** Problem types: slug -> status and title. `type` is `/problems/<slug>`. */
export const PROBLEM_TYPES = {
  'invalid-request': { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'template-name-reserved': { status: 409, title: 'Template name reserved' },
  'job-not-failed': { status: 409, title: 'Print job not failed' },
  'job-not-cancellable': { status: 409, title: 'Print job not cancellable' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'invalid-template': { status: 422, title: 'Invalid template' },
  'invalid-image': { status: 422, title: 'Invalid image' },
  'precondition-required': { status: 428, title: 'Precondition required' },
  'records-not-found': { status: 422, title: 'Records not found' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request headers too large' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'printing-not-configured': { status: 501, title: 'Printing not configured' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

/** Thrown anywhere below the router; the router turns it into a response. */
export class HttpProblem extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** Members beyond the standard ones (e.g. `missing` of records-not-found), as the spec documents them. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
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
  const requestId = res.locals.requestId as string | undefined;
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
