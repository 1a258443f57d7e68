/**
 * One record written or deleted through the API (putRecord, deleteRecord). A write takes
 * the import's one validation path: the row's own checks (rules.ts checkRow) and the
 * set-wise checks against the database (checks.ts runChecks: parents, cycles and depth,
 * asset ids), over an import session holding just this row, and the same write
 * (mergeStaged, which appends its event to the outbox in the same transaction). What only
 * a single write has is its precondition, checked inside the write transaction against
 * the record's ETag, so of two writers holding the same ETag exactly one wins.
 */
import { createHash } from 'node:crypto';
import { ProblemError } from '../../errors.js';
import { isoTimestamp, toRecord, type RecordRow } from '../rows.js';
import { RECORD_COLUMNS } from '../sql/records.js';
import { appendEvents } from '../sql/events.js';
import { POSTGRES, SQLITE } from '../sql/dialect.js';
import type { ImportSession, InventoryRecord, RecordKind, Store } from '../types.js';
import { listProblems, markUnchanged, mergeStaged, runChecks } from './checks.js';
import { checkRow, type RawRow } from './rules.js';
import type { FieldDefinition } from '../fields.js';
import { MAX_LISTED } from './import.js';

/** The record's strong ETag (quotes included): a digest of everything the API shows of it. */
export function recordEtag(r: InventoryRecord): string {
  const digest = createHash('sha256').update(JSON.stringify([r.kind, r.id, r.name, r.description, r.parentId, r.assetId, r.updatedAt])).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/** `create`: only if no such record exists (If-None-Match: *); `ifMatch`: only at that ETag (or `*`: whatever it is). */
export type RecordPrecondition = { create: true } | { ifMatch: string };

/** Rows a write refused, in the import's words (`row 1: ...`; a single write is row 1). */
export class InvalidRecordsError extends ProblemError {
  constructor(readonly errors: string[], readonly problemCount: number) {
    super('invalid-records', `${problemCount} problem${problemCount === 1 ? '' : 's'} in the records; nothing was written: ${errors.slice(0, 3).join('; ')}${errors.length > 3 ? '; …' : ''}`, {
      extensions: { errors, problemCount },
    });
  }
}

const ifMatchHolds = (header: string, etag: string) => header === '*' || header.split(',').some((t) => t.trim() === etag);

function preconditionFailed(kind: RecordKind, id: string, current: InventoryRecord | undefined, p: RecordPrecondition): ProblemError {
  if ('create' in p) return new ProblemError('precondition-failed', `A ${kind} with id ${id} already exists (ETag ${recordEtag(current!)}); replace it with If-Match.`);
  if (!current) return new ProblemError('precondition-failed', `No ${kind} has id ${id} (it may have been deleted); create it with If-None-Match: *.`);
  return new ProblemError('precondition-failed', `The ${kind} ${id} changed since your If-Match (its ETag is now ${recordEtag(current)}); read it again and reapply your change.`);
}

async function currentRecord(db: Pick<ImportSession, 'all'>, kind: RecordKind, id: string): Promise<InventoryRecord | undefined> {
  const [row] = await db.all<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = ? AND id = ?`, [kind, id]);
  return row && toRecord(row);
}

/** How many times a write is checked again after another write changed the records in between. */
const MAX_ATTEMPTS = 5;

/**
 * A record that is not stored (a preview's sample), checked by the import's one validation
 * path (rules.ts checkRow) as putRecord checks one: the record, or the rules it breaks.
 * Rules that need the store (a parent that exists, an asset id no other item has) do not apply.
 */
export function checkSampleRecord(
  kind: RecordKind,
  values: RawRow['values'],
  fields?: { values: unknown; catalogue: readonly FieldDefinition[] },
): { record: InventoryRecord; problems: [] } | { record?: undefined; problems: string[] } {
  const { staged, problems } = checkRow({ row: 1, values: { ...values, kind, id: 'sample' }, ...(fields?.values === undefined ? {} : { fields: fields.values }) }, fields?.catalogue);
  if (problems.length > 0 || !staged) return { problems: problems.length > 0 ? problems : ['the record cannot be read'] };
  const { row: _row, ...record } = staged;
  return { record: { ...record, updatedAt: '' }, problems: [] };
}

/**
 * Creates or replaces one record (`values` as a JSON body gives them: kind and id come from
 * the path). Throws InvalidRecordsError (422) or a precondition-failed problem (412).
 */
export async function putRecord(
  store: Store,
  kind: RecordKind,
  id: string,
  values: RawRow['values'],
  p: RecordPrecondition,
  fields?: { values: unknown; catalogue: readonly FieldDefinition[] },
): Promise<{ record: InventoryRecord; created: boolean }> {
  const { staged, problems } = checkRow({ row: 1, values: { ...values, kind, id }, ...(fields?.values === undefined ? {} : { fields: fields.values }) }, fields?.catalogue);
  if (problems.length > 0 || !staged) throw new InvalidRecordsError(problems.map((m) => `row 1: ${m}`), problems.length);
  const session = await store.imports.begin();
  try {
    await session.stage([staged]);
    await session.staged();
    for (let attempt = 1; ; attempt++) {
      let found = { total: 0, first: [] as { row: number; message: string }[] };
      const revision = await session.snapshot(async () => {
        await runChecks(session);
        found = await listProblems(session, MAX_LISTED);
        if (found.total === 0) await markUnchanged(session);
      });
      if (found.total > 0) throw new InvalidRecordsError(found.first.map((f) => `row ${f.row}: ${f.message}`), found.total);
      let created = false;
      const { outcome } = await session.write(revision, async () => {
        const current = await currentRecord(session, kind, id);
        const holds = 'create' in p ? !current : current !== undefined && ifMatchHolds(p.ifMatch, recordEtag(current));
        if (!holds) throw preconditionFailed(kind, id, current, p);
        created = !current;
        await mergeStaged(session, isoTimestamp(new Date()));
      });
      if (outcome === 'written') {
        const record = await store.records[kind === 'location' ? 'getLocation' : 'getItem'](id);
        if (!record) throw new Error(`the ${kind} ${id} was written but cannot be read back`);
        return { record, created };
      }
      if (attempt === MAX_ATTEMPTS) throw new ProblemError('unavailable', 'Other writes kept changing the records while this one was checked; nothing was written: try again.', { headers: { 'Retry-After': '1' } });
    }
  } finally {
    await session.close();
  }
}

/**
 * Deletes one record at its ETag (If-Match; `*`: whatever it is now). A location that
 * still holds records is refused (409): delete or move them first.
 */
export async function deleteRecord(store: Store, kind: RecordKind, id: string, ifMatch: string): Promise<InventoryRecord> {
  const session = await store.imports.begin();
  try {
    await session.staged(); // nothing staged: the session's transaction is what we use
    for (;;) {
    const revision = await session.snapshot(async () => {});
    let deleted: InventoryRecord | undefined;
    const { outcome } = await session.write(revision, async () => {
      const current = await currentRecord(session, kind, id);
      if (!current) throw new ProblemError('not-found', `No ${kind} has id ${id}.`);
      if (!ifMatchHolds(ifMatch, recordEtag(current))) throw preconditionFailed(kind, id, current, { ifMatch });
      if (kind === 'location') {
        const [child] = await session.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM records WHERE parent_id = ?`, [id]);
        const n = Number(child?.n ?? 0);
        if (n > 0) throw new ProblemError('location-not-empty', `The location ${id} holds ${n} record${n === 1 ? '' : 's'}; delete or move ${n === 1 ? 'it' : 'them'} first.`, { extensions: { childCount: n } });
      }
      await session.run('DELETE FROM records WHERE kind = ? AND id = ?', [kind, id]);
      const d = session.dialect === 'postgres' ? POSTGRES : SQLITE;
      await appendEvents({ dialect: d, run: (sql, params) => session.run(sql, params), all: (sql, params) => session.all(sql, params) }, [
        { type: 'record.deleted', subject: { kind, id }, data: { record: current } },
      ]);
      await session.run('UPDATE records_revision SET revision = revision + 1');
      deleted = current;
    });
    // Stale: another write committed since the (empty) snapshot; take it again.
    if (outcome === 'written') return deleted!;
    }
  } finally {
    await session.close();
  }
}

