/**
 * Page cursors (listRecords, listPrintJobs): the sort key of a page's last entry plus a
 * fingerprint of the filters it was made for, as opaque base64url text. A cursor
 * is not a secret (it holds nothing the caller cannot see), only a bookmark; one
 * used with other filters, or damaged, is a 400 rather than a wrong page.
 */
import { createHash } from 'node:crypto';
import { isRecordKind, type PrintJobSortKey, type RecordSortKey } from '../records/index.js';
import { HttpProblem } from './problems.js';

export function encodeCursor(key: RecordSortKey | PrintJobSortKey, filters: object): string {
  return Buffer.from(JSON.stringify({ k: key, f: fingerprint(filters) })).toString('base64url');
}

export function decodeCursor<K = RecordSortKey>(cursor: string, filters: object, isKey: (k: unknown) => k is K = isSortKey as (k: unknown) => k is K): K {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { k, f } = (parsed ?? {}) as { k?: unknown; f?: unknown };
  if (!isKey(k) || typeof f !== 'string') {
    throw new HttpProblem('invalid-request', 'query parameter cursor: not a cursor this service issued; start again without cursor.');
  }
  if (f !== fingerprint(filters)) {
    throw new HttpProblem('invalid-request', 'query parameter cursor: it was issued for other filters; send the same filters as for the first page.');
  }
  return k;
}

function fingerprint(filters: object): string {
  const canonical = JSON.stringify(Object.entries(filters).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

function isSortKey(k: unknown): k is RecordSortKey {
  if (typeof k !== 'object' || k === null) return false;
  const key = k as Record<string, unknown>;
  if (key.by === 'asset') return Number.isSafeInteger(key.assetId) && (key.assetId as number) > 0 && Object.keys(key).length === 2;
  return (
    key.by === 'name' &&
    typeof key.name === 'string' &&
    isRecordKind(key.kind) &&
    typeof key.id === 'string' &&
    Object.keys(key).length === 4
  );
}

/** Where a page of print jobs ends: the last job's creation time and id. */
export function isJobSortKey(k: unknown): k is PrintJobSortKey {
  if (typeof k !== 'object' || k === null) return false;
  const key = k as Record<string, unknown>;
  return typeof key.createdAt === 'string' && typeof key.id === 'string' && Object.keys(key).length === 2;
}
