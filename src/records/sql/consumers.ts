/**
 * Durable outbox consumers (migration 21, table `event_consumers`), for both dialects:
 * one row per named consumer holds its cursor (the id of the last event it acted on)
 * and the lease of the one instance reading for it. Leases are taken and compared on the
 * database's clock (as the print queue's on PostgreSQL), so a fast clock cannot steal one.
 *
 *   acquireConsumer(q, name, owner, leaseMs, start)  creates the row if missing (cursor 0,
 *       or the newest event id with start 'latest') and takes the lease when it is free,
 *       expired or already this owner's; answers the stored cursor, or undefined when
 *       another owner holds it.
 *   advanceConsumer(q, lease, leaseMs)  INSIDE the transaction of the consumer's own writes,
 *       FIRST: moves the cursor from lease.from to lease.to only if the caller still holds
 *       the lease and nobody moved the cursor since (compare and set), and renews the
 *       lease. It answers false when it did not: the caller must then write nothing (on
 *       PostgreSQL its UPDATE holds the consumer's row lock to commit, so two transactions
 *       for one consumer run one after the other; SQLite has one writer).
 *   renewConsumer / releaseConsumer / getConsumer.
 *
 * So a crash before commit loses nothing (the cursor did not move, the batch is read
 * again), and an instance that lost its lease while working cannot advance or write twice.
 */
import type { ConsumerLease, ConsumerState } from '../types.js';
import type { SqlDialect } from './dialect.js';
import type { Runner } from './printers.js';

/** The database's clock plus `plusMs` (a parameter placeholder or literal), as our ISO text timestamps. */
export function dbNow(d: Pick<SqlDialect, 'name'>, plusMs = '0'): string {
  return d.name === 'postgres'
    ? `to_char((statement_timestamp() + (${plusMs})::int * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ((${plusMs}) / 1000.0) || ' seconds')`;
}

export const CONSUMER_NAME = /^[a-z][a-z0-9:._-]{0,63}$/;
export const MAX_CONSUMER_LEASE_MS = 10 * 60_000;

function checkName(name: string): void {
  if (!CONSUMER_NAME.test(name)) throw new RangeError(`consumer name must match ${CONSUMER_NAME}`);
}
function leaseOf(ms: number): number {
  if (!Number.isFinite(ms) || ms < 1 || ms > MAX_CONSUMER_LEASE_MS) throw new RangeError(`lease must be 1..${MAX_CONSUMER_LEASE_MS} ms`);
  return Math.round(ms);
}

interface ConsumerRow {
  name: string;
  cursor: number | string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  updated_at: string;
}

export async function acquireConsumer(q: Runner, name: string, owner: string, leaseMs: number, start: 'beginning' | 'latest'): Promise<number | undefined> {
  checkName(name);
  const ms = leaseOf(leaseMs);
  const d = q.dialect;
  const initial = start === 'latest' ? '(SELECT COALESCE(MAX(id), 0) FROM events)' : '0';
  await q.run(d.placeholders(`INSERT INTO event_consumers (name, cursor, updated_at) VALUES (?, ${initial}, ${dbNow(d)}) ON CONFLICT (name) DO NOTHING`), [name]);
  const rows = await q.all<{ cursor: number | string }>(
    d.placeholders(`UPDATE event_consumers SET lease_owner = ?, lease_expires_at = ${dbNow(d, '?')}
      WHERE name = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ${dbNow(d)})
      RETURNING cursor`),
    [owner, ms, name, owner],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].cursor);
}

export async function advanceConsumer(q: Runner, lease: ConsumerLease, leaseMs: number): Promise<boolean> {
  if (!Number.isSafeInteger(lease.to) || lease.to < lease.from) throw new RangeError('a cursor only moves forward');
  const d = q.dialect;
  const n = await q.run(
    d.placeholders(`UPDATE event_consumers SET cursor = ?, lease_expires_at = ${dbNow(d, '?')}, updated_at = ${dbNow(d)}
      WHERE name = ? AND lease_owner = ? AND cursor = ?`),
    [lease.to, leaseOf(leaseMs), lease.name, lease.owner, lease.from],
  );
  return n === 1;
}

export async function renewConsumer(q: Runner, name: string, owner: string, leaseMs: number): Promise<boolean> {
  const d = q.dialect;
  const n = await q.run(d.placeholders(`UPDATE event_consumers SET lease_expires_at = ${dbNow(d, '?')} WHERE name = ? AND lease_owner = ?`), [leaseOf(leaseMs), name, owner]);
  return n === 1;
}

export async function releaseConsumer(q: Runner, name: string, owner: string): Promise<boolean> {
  const n = await q.run(q.dialect.placeholders('UPDATE event_consumers SET lease_owner = NULL, lease_expires_at = NULL WHERE name = ? AND lease_owner = ?'), [name, owner]);
  return n === 1;
}

export async function getConsumer(q: Pick<Runner, 'all' | 'dialect'>, name: string): Promise<ConsumerState | undefined> {
  const [row] = await q.all<ConsumerRow>(q.dialect.placeholders('SELECT name, cursor, lease_owner, lease_expires_at, updated_at FROM event_consumers WHERE name = ?'), [name]);
  return row && { name: row.name, cursor: Number(row.cursor), leaseOwner: row.lease_owner, leaseExpiresAt: row.lease_expires_at, updatedAt: row.updated_at };
}
