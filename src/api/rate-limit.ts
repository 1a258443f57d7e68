/**
 * Request budgets per client (verified API token, else address), counted with
 * rate-limiter-flexible in a fixed window of one minute:
 * - PostgreSQL (DATABASE_URL postgres://...): in the `rate_limits` table (migration 10),
 *   so N instances over one database share one budget per client, not N;
 * - Redis, when REDIS_URL is set (whatever the store): in Redis, shared by every
 *   instance that names it;
 * - SQLite: in memory (SQLite serves one instance).
 * When the shared counter cannot be reached (within a second), each instance falls
 * back to counting in memory rather than refusing or stalling requests.
 * Answers carry RateLimit-Limit/-Remaining/-Reset; a spent budget is a 429 problem
 * with Retry-After, as the spec documents.
 */
import { addHeader } from './headers.js';
import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { addressKey } from './address-key.js';
import { sendProblem } from './problems.js';
import { requestLog } from './request-id.js';

export const RATE_LIMIT_WINDOW_S = 60;

export interface RateLimiter {
  /** Where budgets are counted: `redis` or `postgres` (shared by every instance using it) or `memory` (this instance). */
  kind: 'redis' | 'postgres' | 'memory';
  limiter: RateLimiterAbstract;
  limit: number;
  /** Labels sent to the printer per token and minute (PRINT_QUOTA_PER_MINUTE, print-quota.ts), counted where the requests are. */
  printQuota: { limiter: RateLimiterAbstract; limit: number };
  close(): Promise<void>;
}

/** PRINT_QUOTA_PER_MINUTE's default: the largest batch (1000 labels) fits in one minute. */
export const DEFAULT_PRINT_QUOTA = 1000;
const PRINT_QUOTA_PREFIX = 'labelmaker:print-quota';

export function memoryRateLimiter(limit: number, printQuota = DEFAULT_PRINT_QUOTA): RateLimiter {
  return {
    kind: 'memory',
    limit,
    limiter: new RateLimiterMemory({ points: limit, duration: RATE_LIMIT_WINDOW_S }),
    printQuota: { limit: printQuota, limiter: new RateLimiterMemory({ points: printQuota, duration: RATE_LIMIT_WINDOW_S, keyPrefix: PRINT_QUOTA_PREFIX }) },
    close: async () => {},
  };
}

/**
 * The limiter for this deployment: Redis when configured, else PostgreSQL when the store
 * is PostgreSQL, else memory. The Redis and PostgreSQL clients are loaded only when used:
 * loaded up front they cost a SQLite service about 3.7 MB of heap and their compiled code.
 */
export async function createRateLimiter(databaseUrl: string, limit: number, redisUrl?: string, printQuota = DEFAULT_PRINT_QUOTA): Promise<RateLimiter> {
  if (redisUrl) return redisRateLimiter(redisUrl, limit, printQuota);
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return memoryRateLimiter(limit, printQuota);
  const { default: pg } = await import('pg');
  // Its own small pool with short time-outs: a slow database must not hold requests up;
  // the in-memory insurance limiter answers instead. Every request writes its count, and
  // counts need no durability (a crash forgets the last moment's: a client gets a few more
  // requests), so its commits do not wait for the disk (synchronous_commit off, these
  // connections only). On this machine's disk an upsert takes 0.32 against 0.58 ms; with
  // four connections, a disk whose flush takes milliseconds could otherwise cap every
  // instance's label requests. (bench:http --print-only --postgres: labels alongside
  // printing 492-534 against 374-527 req/s, within this machine's noise.)
  // Set at connection start-up (libpq's `options`), added to any the DATABASE_URL carries: the URL's own
  // `options` would replace a separate pool setting, and a query on 'connect' races the pool's first query.
  const url = new URL(databaseUrl);
  url.searchParams.set('options', [url.searchParams.get('options'), '-c synchronous_commit=off'].filter(Boolean).join(' '));
  const pool = new pg.Pool({ connectionString: url.href, max: 4, connectionTimeoutMillis: 1_000, query_timeout: 1_000, statement_timeout: 1_000 });
  pool.on('error', () => {});
  // As the store's pool: a checked-out client that loses its connection must not crash the process.
  pool.on('connect', (client) => client.on('error', () => {}));
  const postgresLimiter = (points: number, keyPrefix?: string) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true, // by migration 10, with the store's other tables
      points,
      duration: RATE_LIMIT_WINDOW_S,
      ...(keyPrefix ? { keyPrefix } : {}),
      insuranceLimiter: new RateLimiterMemory({ points, duration: RATE_LIMIT_WINDOW_S, ...(keyPrefix ? { keyPrefix } : {}) }),
    });
  const limiter = postgresLimiter(limit);
  // The same table, its own keys (rows are keyed by prefix and client).
  const printQuotaLimiter = postgresLimiter(printQuota, PRINT_QUOTA_PREFIX);
  return { kind: 'postgres', limit, limiter, printQuota: { limit: printQuota, limiter: printQuotaLimiter }, close: () => pool.end() };
}

async function redisRateLimiter(redisUrl: string, limit: number, printQuota: number): Promise<RateLimiter> {
  const { Redis } = await import('ioredis');
  // Fail fast, never queue: while Redis is away each instance counts in memory (the insurance limiter).
  const client = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 1_000 });
  client.on('error', () => {}); // reconnects by itself; requests meanwhile use the insurance limiter
  const redisLimiter = (points: number, keyPrefix: string) =>
    new RateLimiterRedis({
      storeClient: client,
      keyPrefix,
      points,
      duration: RATE_LIMIT_WINDOW_S,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points, duration: RATE_LIMIT_WINDOW_S, keyPrefix }),
    });
  const limiter = redisLimiter(limit, 'labelmaker:rate-limit');
  return {
    kind: 'redis',
    limit,
    limiter,
    printQuota: { limit: printQuota, limiter: redisLimiter(printQuota, PRINT_QUOTA_PREFIX) },
    close: async () => {
      client.disconnect();
    },
  };
}

/** The RateLimit-* headers of an answer that took a point. */
export function rateLimitHeaders(limit: number, r: RateLimiterRes): { 'RateLimit-Limit': string; 'RateLimit-Remaining': string; 'RateLimit-Reset': string } {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(r.remainingPoints), 'RateLimit-Reset': String(Math.max(1, Math.ceil(r.msBeforeNext / 1000))) };
}

/** Express middleware: one point per request, keyed by token (set by identify() in auth.ts) or address. */
export function rateLimit({ limiter, limit }: RateLimiter, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const auth = res.locals.auth;
    // One budget per verified API token; requests without a valid one share their address's.
    const key = auth && 'token' in auth ? `token:${auth.token.id}` : `ip:${addressKey(req.ip ?? '')}`;
    const headers = (r: RateLimiterRes) => {
      const set = rateLimitHeaders(limit, r);
      // Written with the status line (headers.ts): every answer passes here.
      addHeader(res, 'RateLimit-Limit', set['RateLimit-Limit']);
      addHeader(res, 'RateLimit-Remaining', set['RateLimit-Remaining']);
      addHeader(res, 'RateLimit-Reset', set['RateLimit-Reset']);
      return set['RateLimit-Reset'];
    };
    limiter.consume(key).then(
      (r) => {
        headers(r);
        next();
      },
      (rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) {
          const seconds = headers(rejection);
          sendProblem(res, 'rate-limited', `Limit of ${limit} requests per minute reached; retry in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
          return;
        }
        // Neither the shared store nor the insurance limiter answered: let the request through.
        requestLog(res, logger).error({ err: rejection }, 'rate limiter failed; request let through');
        next();
      },
    );
  };
}
