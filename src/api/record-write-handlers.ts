/**
 * Records through the API (getRecord, putRecord, deleteRecord, upsertRecords). Thin:
 * preconditions and the Idempotency-Key here; every rule, the conditional write and its
 * outbox event in src/records/import (the import's one validation path).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { components } from '../../generated/openapi.js';
import { ProblemError } from '../errors.js';
import { deleteRecord, formatAssetId, importRecords, InvalidRecordsError, MAX_LISTED, putRecord, recordEtag, type FieldDefinition, type InventoryRecord, type RecordKind, type RecordPrecondition, type Store } from '../records/index.js';
import { tokenOf } from './router.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';

type StoredRecord = components['schemas']['StoredRecord'];
type BulkResult = components['schemas']['BulkResult'];

export const RECORDS_PATH = '/v1/labelmaker/records';
/** How long an Idempotency-Key of a bulk write holds (as a print job's). */
export const RECORD_SYNC_KEY_MS = 24 * 60 * 60 * 1000;
/** How long a bulk write may take once its body arrived (a million records take about a minute). */
export const BULK_WORK_TIMEOUT_MS = 15 * 60 * 1000;

const KINDS: Record<'locations' | 'items', RecordKind> = { locations: 'location', items: 'item' };

export function toStoredRecord(r: InventoryRecord): StoredRecord {
  const stored: StoredRecord = { kind: r.kind, id: r.id, name: r.name, description: r.description, parentId: r.parentId, assetId: r.assetId === null ? null : formatAssetId(r.assetId), updatedAt: r.updatedAt };
  return r.fields === undefined ? stored : { ...stored, fields: r.fields };
}

function preconditionOf(headers: { 'if-match'?: string; 'if-none-match'?: string }, operation: 'put' | 'delete'): RecordPrecondition {
  const ifMatch = headers['if-match']?.trim();
  const ifNoneMatch = headers['if-none-match']?.trim();
  if (operation === 'put' && ifMatch && ifNoneMatch) throw new HttpProblem('invalid-request', 'Send If-Match (to replace) or If-None-Match: * (to create), not both.');
  if (ifMatch) return { ifMatch };
  if (operation === 'put' && ifNoneMatch === '*') return { create: true };
  throw new HttpProblem(
    'precondition-required',
    operation === 'put' ? "Send If-Match with the record's ETag to replace it, or If-None-Match: * to create it." : "Send If-Match with the record's ETag (or *) to delete it.",
  );
}

export function recordWriteHandlers(store: Store, catalogue: readonly FieldDefinition[] = []): Pick<Handlers, 'getRecord' | 'putRecord' | 'deleteRecord' | 'upsertRecords'> {
  return {
    async getRecord(c, _req, res) {
      const { kind: plural, id } = c.request.params;
      const kind = KINDS[plural];
      const record = await store.records[kind === 'location' ? 'getLocation' : 'getItem'](id);
      if (!record) throw new HttpProblem('not-found', `No ${kind} has id ${id}.`);
      res.set({ ETag: recordEtag(record), 'Cache-Control': 'private, no-cache' });
      sendJson(res, 200, toStoredRecord(record));
    },

    async putRecord(c, _req, res) {
      const { kind: plural, id } = c.request.params;
      const precondition = preconditionOf(c.request.headers, 'put');
      const body = c.request.requestBody;
      const { record, created } = await putRecord(store, KINDS[plural], id, { name: body.name, description: body.description, parent_id: body.parentId, asset_id: body.assetId }, precondition, { values: body.fields, catalogue });
      res.set({ ETag: recordEtag(record) });
      if (created) res.set({ Location: `${RECORDS_PATH}/${plural}/${id}` });
      sendJson(res, created ? 201 : 200, toStoredRecord(record));
    },

    async deleteRecord(c, _req, res) {
      const { kind: plural, id } = c.request.params;
      const { ifMatch } = preconditionOf(c.request.headers, 'delete') as { ifMatch: string };
      await deleteRecord(store, KINDS[plural], id, ifMatch);
      res.status(204).end();
    },

    async upsertRecords(c, req, res) {
      const stream = res.locals.bodyStream as AsyncIterable<Uint8Array> | undefined;
      if (!stream) throw new HttpProblem('invalid-request', 'The request has no body: send the records as JSON lines or a JSON array.');
      const type = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
      const key = c.request.headers['idempotency-key'];
      const tokenId = tokenOf(res).id;
      // The body is spooled to a private temporary file as it arrives (memory holds a chunk at
      // a time), so it is received within the request time-out however long the checks then
      // take; the import streams it from there, as it streams a file.
      const hash = createHash('sha256');
      const spoolDir = await mkdtemp(join(tmpdir(), 'labelmaker-bulk-'));
      const spool = join(spoolDir, 'body');
      try {
        await pipeline(
          Readable.from(stream),
          new Transform({
            transform(chunk: Buffer, _encoding, done) {
              hash.update(chunk);
              done(null, chunk);
            },
          }),
          createWriteStream(spool, { mode: 0o600 }),
        );
        const requestHash = hash.digest('hex');
        // Checking and writing a million records takes longer than a label: this answer's own bound.
        res.setTimeout(BULK_WORK_TIMEOUT_MS);
        let replay: BulkResult | undefined;
        const result = await importRecords(store, createReadStream(spool), type === 'application/x-ndjson' ? 'ndjson' : 'json', {
          fields: catalogue,
          // Inside the write transaction: the key is taken with the write, or the write is undone.
          beforeCommit: key === undefined ? undefined : async (session, { imported, written }) => {
            const now = new Date();
            await session.run('DELETE FROM record_syncs WHERE token_id = ? AND idempotency_key = ? AND created_at < ?', [tokenId, key, new Date(now.getTime() - RECORD_SYNC_KEY_MS).toISOString()]);
            const [earlier] = await session.all<{ request_hash: string; response: string }>('SELECT request_hash, response FROM record_syncs WHERE token_id = ? AND idempotency_key = ?', [tokenId, key]);
            if (earlier) {
              if (earlier.request_hash !== requestHash) throw new HttpProblem('idempotency-key-reused', `Idempotency-Key '${key}' was already used with another body; use a new key.`);
              replay = JSON.parse(earlier.response) as BulkResult;
              throw new Replayed();
            }
            const answer: BulkResult = { records: imported, written, unchanged: imported - written };
            await session.run('INSERT INTO record_syncs (token_id, idempotency_key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)', [tokenId, key, requestHash, JSON.stringify(answer), now.toISOString()]);
          },
        }).catch((err: unknown) => {
          if (err instanceof Replayed) return undefined; // rolled back: the first request's answer stands
          throw err;
        });
        if (!result) return sendJson(res, 200, replay);
        if (result.problemCount > 0) throw new InvalidRecordsError(result.errors.slice(0, MAX_LISTED), result.problemCount);
        sendJson(res, 200, { records: result.imported, written: result.written, unchanged: result.imported - result.written } satisfies BulkResult);
      } finally {
        await rm(spoolDir, { recursive: true, force: true });
      }
    },
  };
}

/** A replayed Idempotency-Key: thrown inside the write transaction to undo it. */
class Replayed extends ProblemError {
  constructor() {
    super('internal-error', 'replayed idempotency key');
  }
}
