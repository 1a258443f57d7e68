/**
 * Tells "the store is unreachable right now" (a 503: retry later) apart from
 * every other failure (a 500: a bug or broken data), for both store kinds.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  '57P01', '57P02', '57P03', // PostgreSQL: admin shutdown, crash shutdown, cannot connect now
  '53300', // PostgreSQL: too many connections
  '08000', '08001', '08003', '08006', // PostgreSQL: connection exceptions
  '57014', // PostgreSQL: statement timeout (query_canceled)
  'SQLITE_BUSY', 'SQLITE_LOCKED',
]);

export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  // better-sqlite3 on a closed handle; pg on a closed pool or a dropped connection.
  return /database connection is not open|Cannot use a pool after calling end|Connection terminated|timeout exceeded when trying to connect|Query read timeout/i.test(err.message);
}
