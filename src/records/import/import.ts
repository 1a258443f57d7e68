/**
 * Bulk import of records from JSON or CSV, streamed: the file is read once, row by
 * row (read.ts), each row checked on its own (rules.ts) and staged in
 * the database; then every rule that involves other rows or the database is checked
 * set-wise and the rows are written in one short transaction (checks.ts).
 * Memory stays bounded and time linear in the number of rows.
 *
 * All or nothing: every problem is reported with its row number (the first
 * MAX_LISTED of them, and how many there are), and one problem means nothing is
 * written.
 *
 * Row numbers: JSON counts array elements from 1. CSV counts like a spreadsheet:
 * the header is row 1, the first record row 2, blank lines count, a newline inside a
 * quoted field does not.
 */
import { createReadStream } from 'node:fs';
import { listProblems, markUnchanged, mergeStaged, runChecks, type CheckStep } from './checks.js';
import { readRows } from './read.js';
import { checkRow } from './rules.js';
import type { FieldDefinition } from '../fields.js';
import { isoTimestamp } from '../rows.js';
import type { ImportFileJob, ImportFormat, ImportResult, RecordSync, RecordSyncKey, StagedRow, Store } from '../types.js';

export type { ImportFileJob, ImportFormat, ImportResult } from '../types.js';
export { LIMITS, RULES_TEXT } from './rules.js';

/** Problems listed in a result; the rest are counted. */
export const MAX_LISTED = 200;
/** Rows per staging batch: bounds memory and how often progress is reported. */
const BATCH = 250;
/** Another import wrote between our checks and our write this many times in a row: give up. */
const MAX_ATTEMPTS = 3;

export interface ImportProgress {
  phase: 'reading' | 'waiting' | 'checking' | 'writing';
  /** Rows read so far. */
  rows: number;
  /** Bytes read so far. */
  bytes: number;
  step?: CheckStep;
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void;
  /** The deployment's field catalogue (FIELDS_FILE): what custom field values a row may carry. None: no custom fields. */
  fields?: readonly FieldDefinition[];
  /**
   * The API's bulk write: its Idempotency-Key, taken inside the write transaction with the
   * answer (BulkResult in the spec); a key that holds an answer already undoes the write and
   * comes back as the result's `replayed`.
   */
  syncKey?: RecordSyncKey;
}

/**
 * Imports a file in full (the API's spooled bulk write): on the store's own import thread
 * where it has one (RecordImports.importFile: SQLite), else here. Either way importRecords.
 */
export async function importFile(store: Pick<Store, 'imports'>, job: ImportFileJob): Promise<ImportResult> {
  if (store.imports.importFile) return store.imports.importFile(job);
  return importRecords(store, createReadStream(job.file), job.format, { fields: job.fields, syncKey: job.syncKey });
}

/** Checks the whole file against itself and the store, then writes all records in one transaction, or none. */
export async function importRecords(store: Pick<Store, 'imports'>, input: string | AsyncIterable<Uint8Array>, format: ImportFormat, options: ImportOptions = {}): Promise<ImportResult> {
  const report = options.onProgress ?? (() => {});
  const problems = new ProblemList(MAX_LISTED);
  const progress: ImportProgress = { phase: 'reading', rows: 0, bytes: 0 };
  const update = (change: Partial<ImportProgress>) => report(Object.assign(progress, change));

  const session = await store.imports.begin({ onWait: () => update({ phase: 'waiting' }) });
  try {
    update({ phase: 'reading' });
    let stopped = false;
    let batch: StagedRow[] = [];
    let records = 0;
    const sink = {
      problem: (row: number, message: string, fatal = false) => {
        problems.add(row, message);
        stopped ||= fatal;
      },
    };
    const source = countBytes(typeof input === 'string' ? chunksOf(input) : input, (n) => (progress.bytes += n));
    for await (const raw of readRows(source, format, sink)) {
      progress.rows++;
      const { staged, problems: found } = checkRow(raw, options.fields);
      for (const message of found) problems.add(raw.row, message);
      if (!staged) continue;
      records++;
      batch.push(staged);
      if (batch.length >= BATCH) {
        await session.stage(batch);
        batch = [];
        update({});
      }
    }
    if (batch.length > 0) await session.stage(batch);
    update({});
    // A read that stopped early (bad header, broken syntax) would make the set-wise checks report noise.
    if (stopped) return failed(problems);

    update({ phase: 'checking', step: 'sorting and indexing' });
    await session.staged();
    for (let attempt = 1; ; attempt++) {
      let found = { total: 0, first: [] as { row: number; message: string }[] };
      const revision = await session.snapshot(async () => {
        await runChecks(session, (step) => update({ step }));
        found = await listProblems(session, MAX_LISTED);
        if (found.total === 0 && problems.total === 0) await markUnchanged(session);
      });
      problems.addCounted(found.first, found.total);
      if (problems.total > 0) return failed(problems);

      update({ phase: 'writing', step: undefined });
      let written = 0;
      let replayed: RecordSync | undefined;
      const { outcome, lockMs } = await session
        .write(revision, async () => {
          written = await mergeStaged(session, isoTimestamp(new Date()));
          if (!options.syncKey) return;
          const answer = { records: records, written, unchanged: records - written };
          replayed = await session.takeSyncKey(options.syncKey, JSON.stringify(answer));
          if (replayed) throw REPLAYED; // undoes the write: the key's first request stands
        })
        .catch((err: unknown) => {
          if (err === REPLAYED) return { outcome: 'replayed' as const, lockMs: 0 };
          throw err;
        });
      if (outcome === 'replayed') return { imported: 0, written: 0, errors: [], problemCount: 0, replayed };
      if (outcome === 'written') return { imported: records, written, errors: [], problemCount: 0, lockMs };
      if (attempt === MAX_ATTEMPTS) throw new Error('other imports kept changing the records while this one was checked; nothing was imported: run it again');
      update({ phase: 'checking' });
    }
  } finally {
    await session.close();
  }
}

/** Thrown inside the write to roll it back when the Idempotency-Key already holds an answer. */
const REPLAYED = new Error('replayed idempotency key');

function failed(problems: ProblemList): ImportResult {
  return { imported: 0, written: 0, errors: problems.list(), problemCount: problems.total };
}

/**
 * Keeps the first `keep` problems by row (file-level ones, row 0, first; stable
 * within a row) and counts all of them, in memory bounded by `keep`.
 */
class ProblemList {
  total = 0;
  private kept: { row: number; message: string }[] = [];

  constructor(private readonly keep: number) {}

  add(row: number, message: string): void {
    this.total++;
    this.kept.push({ row, message });
    if (this.kept.length >= 2 * this.keep) this.trim();
  }

  /** Adds the first of `total` problems found elsewhere. */
  addCounted(first: { row: number; message: string }[], total: number): void {
    for (const p of first) this.add(p.row, p.message);
    this.total += total - first.length;
  }

  list(): string[] {
    this.trim();
    return this.kept.map((p) => (p.row > 0 ? `row ${p.row}: ${p.message}` : p.message));
  }

  private trim(): void {
    this.kept.sort((a, b) => a.row - b.row);
    this.kept.length = Math.min(this.kept.length, this.keep);
  }
}

async function* chunksOf(text: string): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  yield bytes;
}

async function* countBytes(source: AsyncIterable<Uint8Array>, add: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    add(chunk.length);
    yield chunk;
  }
}
