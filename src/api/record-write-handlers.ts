/**
 * Records through the API (getRecord, putRecord, deleteRecord, upsertRecords). Thin:
 * preconditions, the spooled body and the Idempotency-Key's answers here; every rule, the
 * conditional write, its outbox event and the key's storage in src/records (the import's
 * one validation path, on the store's import thread where it has one: RecordImports.importFile).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { components } from '../../generated/openapi.js';
import { IdempotencyMismatchError, IDEMPOTENCY_WINDOW_MS } from '../printing/index.js';
import { deleteRecord, formatAssetId, importFile, InvalidRecordsError, MAX_LISTED, putRecord, recordEtag, type FieldDefinition, type InventoryRecord, type RecordKind, type RecordSync, type RecordPrecondition, type Store } from '../records/index.js';
import { tokenOf } from './router.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';

type StoredRecord = components['schemas']['StoredRecord'];
type BulkResult = components['schemas']['BulkResult'];

export const RECORDS_PATH = '/v1/labelmaker/records';
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
        // As a print job's key (printing/queue.ts): a live key answers what it answered, whatever the records are now.
        const syncKey = key === undefined ? undefined : { tokenId, key, requestHash, since: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS).toISOString() };
        const replay = (earlier: RecordSync) => {
          if (earlier.requestHash !== requestHash) throw new IdempotencyMismatchError(`Idempotency-Key '${key}' was already used with another body; use a new key.`);
          sendJson(res, 200, JSON.parse(earlier.response) as BulkResult);
        };
        const earlier = syncKey && (await store.records.syncByKey(tokenId, syncKey.key, syncKey.since));
        if (earlier) return replay(earlier);
        // Checking and writing a million records takes longer than a label: this answer's own bound.
        res.setTimeout(BULK_WORK_TIMEOUT_MS);
        const result = await importFile(store, { file: spool, format: type === 'application/x-ndjson' ? 'ndjson' : 'json', fields: catalogue, syncKey });
        // Another request with the key committed first (the key is taken inside the write).
        if (result.replayed) return replay(result.replayed);
        if (result.problemCount > 0) throw new InvalidRecordsError(result.errors.slice(0, MAX_LISTED), result.problemCount);
        sendJson(res, 200, { records: result.imported, written: result.written, unchanged: result.imported - result.written } satisfies BulkResult);
      } finally {
        await rm(spoolDir, { recursive: true, force: true });
      }
    },
  };
}
