/**
 * RFC 9457 problem responses. Every error the API sends is built here, so the
 * catalogue below is the complete list of problem types a client can meet.
 */
import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';

export type Problem = components['schemas']['Problem'];

/** Problem types: slug -> status and title. `type` is `/problems/<slug>`. */
export const PROBLEM_TYPES = {
  'invalid-request': { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'rate-limited': { status: 429, title: 'Too many requests' },
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
  ) {
    super(detail);
  }
}

export function problem(slug: ProblemSlug, detail: string, instance?: string): Problem {
  const { status, title } = PROBLEM_TYPES[slug];
  const body: Problem = { type: `/problems/${slug}`, title, status, detail: detail.slice(0, 2000) };
  if (instance) body.instance = instance.slice(0, 2048);
  return body;
}

export function sendProblem(
  res: Response,
  slug: ProblemSlug,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const body = problem(slug, detail, res.req.originalUrl);
  res.status(body.status).set(headers).type('application/problem+json').send(JSON.stringify(body));
}
