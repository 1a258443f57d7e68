/**
 * A bulk write's Idempotency-Key (record_syncs, made by migration 18), written once for
 * both stores: read before the work (RecordStore.syncByKey), taken inside the write's own
 * transaction (ImportSession.takeSyncKey), so the key and the records land together or not
 * at all. As a print job's key (sqlite/print-jobs.ts submit): an expired key is released
 * and may be used again; a live one answers what it holds.
 */
import type { ImportSession, RecordSync, RecordSyncKey } from '../types.js';

interface RecordSyncRow {
  request_hash: string;
  response: string;
}

/** The live answer under a key (`?` placeholders: the PostgreSQL store translates them). */
export const SYNC_BY_KEY_SQL = 'SELECT request_hash, response FROM record_syncs WHERE token_id = ? AND idempotency_key = ? AND created_at >= ?';

export const toRecordSync = (row: RecordSyncRow): RecordSync => ({ requestHash: row.request_hash, response: row.response });

/** ImportSession.takeSyncKey over a session's own statements. */
export async function takeSyncKey(db: Pick<ImportSession, 'run' | 'all'>, key: RecordSyncKey, response: string): Promise<RecordSync | undefined> {
  await db.run('DELETE FROM record_syncs WHERE token_id = ? AND idempotency_key = ? AND created_at < ?', [key.tokenId, key.key, key.since]);
  const [earlier] = await db.all<RecordSyncRow>(SYNC_BY_KEY_SQL, [key.tokenId, key.key, key.since]);
  if (earlier) return toRecordSync(earlier);
  await db.run('INSERT INTO record_syncs (token_id, idempotency_key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)', [key.tokenId, key.key, key.requestHash, response, new Date().toISOString()]);
  return undefined;
}
