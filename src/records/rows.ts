/**
 * Row <-> contract mapping of records and tokens, shared by the SQLite and PostgreSQL
 * stores, so both return byte-identical objects for the same data (print jobs:
 * sql/print-jobs.ts).
 */
import { fieldsColumn, fieldsFromColumn } from './fields.js';
import { isScope } from './tokens.js';
import { ALL_SCOPES, type InventoryRecord, type RecordInput, type TokenInfo } from './types.js';

export interface RecordRow {
  kind: string;
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  /** pg returns BIGINT as a string (it may exceed 2^53); asset ids never do. */
  asset_id: number | string | null;
  updated_at: string;
  /** JSON of the record's custom field values (migration 19); null for none. */
  fields: string | null;
}

export interface TokenRow {
  id: string;
  name: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Column values for one upsert, in the stores' column order. */
export type RecordValues = [kind: string, id: string, name: string, description: string, parentId: string | null, assetId: number | null, updatedAt: string, fields: string | null];

/** Deepest location chain locationPath follows; also what stops a walk around a parent cycle. */
export const MAX_LOCATION_DEPTH = 32;

/** Token uses are recorded at most this often; see lastUseToRecord. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Whether findActiveByHash should write last_used_at, and with which values.
 * Writing on every request would turn each authenticated read into a write (SQLite:
 * the single writer lock and WAL growth; PostgreSQL: a dead tuple and WAL record per
 * request), while "last used" only needs minute precision to spot stale tokens.
 * The stores' UPDATE repeats `last_used_at < cutoff` in its WHERE clause, so
 * concurrent requests still write at most once per interval.
 */
export function lastUseToRecord(lastUsedAt: string | null, nowMs = Date.now()): { now: string; cutoff: string } | undefined {
  const cutoff = new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString();
  if (lastUsedAt !== null && lastUsedAt >= cutoff) return undefined;
  return { now: new Date(nowMs).toISOString(), cutoff };
}

export function toRecord(row: RecordRow): InventoryRecord {
  return {
    kind: row.kind as InventoryRecord['kind'],
    id: row.id,
    name: row.name,
    description: row.description,
    parentId: row.parent_id,
    assetId: row.asset_id === null ? null : Number(row.asset_id),
    updatedAt: row.updated_at,
    ...(row.fields ? { fields: fieldsFromColumn(row.fields) } : {}),
  };
}

export function toTokenInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    // Unknown stored scopes (say, written by a newer release) grant nothing rather than break auth.
    scopes: ALL_SCOPES.filter((s) => row.scopes.split(' ').filter(isScope).includes(s)),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Any parseable timestamp → canonical `toISOString()` form (what text ordering relies on). */
export function isoTimestamp(value: string | Date): string {
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`invalid timestamp: ${String(value)}`);
  return d.toISOString();
}

/**
 * Upsert values for a batch. Later duplicates of the same (kind, id) win, as they
 * would with row-by-row upserts; PostgreSQL's single-statement upsert needs them
 * removed up front.
 */
export function recordValues(records: readonly RecordInput[], now: string): RecordValues[] {
  const byKey = new Map<string, RecordValues>();
  for (const r of records) {
    const key = `${r.kind}\u0000${r.id}`;
    byKey.delete(key); // keep the last occurrence's position too
    byKey.set(key, [r.kind, r.id, r.name, r.description ?? '', r.parentId ?? null, r.assetId ?? null, r.updatedAt ? isoTimestamp(r.updatedAt) : now, fieldsColumn(r.fields)]);
  }
  return [...byKey.values()];
}
