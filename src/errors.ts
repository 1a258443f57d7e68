/**
 * Errors that carry their problem (RFC 9457): a domain error names the spec's problem
 * type it is, with the detail and headers a client reads, and the one mapper at the
 * edge (src/api/router.ts) writes it. The catalogue below is the complete list of
 * problem types a client can meet, and the one place a type gets its status and
 * title; the spec lists the same types (its Errors section; test/api/problem-types.test.ts).
 * Every layer may import this module (labels too: it imports nothing).
 */

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
  'printer-from-config': { status: 409, title: 'Printer from configuration' },
  'printer-has-jobs': { status: 409, title: 'Printer has jobs' },
  'job-not-movable': { status: 409, title: 'Print job not movable' },
  'lease-lost': { status: 409, title: 'Lease lost' },
  'location-not-empty': { status: 409, title: 'Location not empty' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'invalid-template': { status: 422, title: 'Invalid template' },
  'invalid-image': { status: 422, title: 'Invalid image' },
  'unknown-printer': { status: 422, title: 'Unknown printer' },
  'invalid-print-rule': { status: 422, title: 'Invalid print rule' },
  'records-not-found': { status: 422, title: 'Records not found' },
  'invalid-records': { status: 422, title: 'Invalid records' },
  'invalid-printer': { status: 422, title: 'Invalid printer' },
  'invalid-webhook': { status: 422, title: 'Invalid webhook' },
  'precondition-required': { status: 428, title: 'Precondition required' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request headers too large' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'printing-not-configured': { status: 501, title: 'Printing not configured' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export interface ProblemOptions {
  /** What the client reads (the problem's `detail`); the message when absent. */
  detail?: string;
  /** Response headers that go with the problem (`Retry-After`, `WWW-Authenticate`, ...). */
  headers?: Record<string, string>;
  /** Members beyond the standard ones (e.g. `missing` of records-not-found), as the spec documents them. */
  extensions?: Record<string, unknown>;
  /**
   * A fault the operator should see, not only the client: the edge logs the error
   * (its cause when it wraps one) at error level with this message.
   */
  logAs?: string;
  cause?: unknown;
}

/** An error a client is told about as the problem `problem`; anything else that reaches the edge is a 500. */
export class ProblemError extends Error {
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly logAs: string | undefined;

  constructor(
    readonly problem: ProblemSlug,
    message: string,
    { detail, headers = {}, extensions = {}, logAs, cause }: ProblemOptions = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.detail = detail ?? message;
    this.headers = headers;
    this.extensions = extensions;
    this.logAs = logAs;
  }

  get status(): number {
    return PROBLEM_TYPES[this.problem].status;
  }
}
