/**
 * The set-wise half of an import, written once for both stores: the rows are staged
 * in temporary tables, every rule that involves other rows or the database is one
 * SQL statement over the whole set (so cost grows linearly with rows and the number
 * of statements does not grow at all), and the write is one INSERT ... SELECT.
 *
 * What differs between SQLite and PostgreSQL (staging, transactions, placeholders)
 * sits behind ImportSession (types.ts); see ../sqlite/import-session.ts and ../postgres/import-session.ts.
 *
 * Staging tables (created by the session):
 *   import_rows     (row_no, kind, id, name, description, parent_id, asset_id)  the file
 *   import_problems (row_no, code, kind, ref, asset_id, other_row)              what is wrong
 *   import_tree     (id, parent_id, row_no, gen, depth)   the file's locations and their database ancestors
 *   import_asset_moves (id)   database items whose asset id the file gives to another item
 *   import_unchanged (row_no) rows the database already holds exactly as they are
 */
import { formatAssetId } from '../asset-id.js';
import type { ImportSession } from '../types.js';
import { LIMITS } from './rules.js';
import { lockEvents, recordJson } from '../sql/events.js';
import { POSTGRES, SQLITE } from '../sql/dialect.js';

export type CheckStep = 'sorting and indexing' | 'duplicates' | 'parents' | 'asset ids' | 'location tree';

/** Runs every set-wise check, filling import_problems, import_tree and import_asset_moves. */
export async function runChecks(db: ImportSession, onStep: (step: CheckStep) => void = () => {}): Promise<void> {
  await db.run('DELETE FROM import_problems');
  await db.run('DELETE FROM import_tree');
  await db.run('DELETE FROM import_asset_moves');

  onStep('duplicates');
  await db.run(`
    INSERT INTO import_problems (row_no, code, kind, ref, other_row)
    SELECT r.row_no, 'duplicate-id', r.kind, r.id, f.first_row
      FROM import_rows r
      JOIN (SELECT kind, id, MIN(row_no) AS first_row FROM import_rows GROUP BY kind, id HAVING COUNT(*) > 1) f
        ON f.kind = r.kind AND f.id = r.id
     WHERE r.row_no > f.first_row`);
  await db.run(`
    INSERT INTO import_problems (row_no, code, asset_id, other_row)
    SELECT r.row_no, 'duplicate-asset', r.asset_id, f.first_row
      FROM import_rows r
      JOIN (SELECT asset_id, MIN(row_no) AS first_row FROM import_rows WHERE asset_id IS NOT NULL GROUP BY asset_id HAVING COUNT(*) > 1) f
        ON f.asset_id = r.asset_id
     WHERE r.row_no > f.first_row`);

  onStep('parents');
  await db.run(`
    INSERT INTO import_problems (row_no, code, ref)
    SELECT r.row_no, 'missing-parent', r.parent_id
      FROM import_rows r
     WHERE r.parent_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM import_rows p WHERE p.kind = 'location' AND p.id = r.parent_id)
       AND NOT EXISTS (SELECT 1 FROM records p WHERE p.kind = 'location' AND p.id = r.parent_id)`);

  onStep('asset ids');
  // An asset id held in the database by an item the file does not re-import is taken.
  // Held by an item the file re-imports (with another asset id, or none), it moves:
  // the write frees it first, so swaps and renumberings import in one go. (Only items
  // have asset ids; joining on asset_id alone lets the planner use its unique index
  // instead of walking every item in the database.)
  await db.run(`
    INSERT INTO import_problems (row_no, code, ref, asset_id)
    SELECT r.row_no, 'asset-taken', h.id, r.asset_id
      FROM import_rows r
      JOIN records h ON h.asset_id = r.asset_id
     WHERE r.asset_id IS NOT NULL AND h.id <> r.id
       AND NOT EXISTS (SELECT 1 FROM import_rows m WHERE m.kind = 'item' AND m.id = h.id)`);
  await db.run(`
    INSERT INTO import_asset_moves (id)
    SELECT DISTINCT h.id
      FROM import_rows r
      JOIN records h ON h.asset_id = r.asset_id
     WHERE r.asset_id IS NOT NULL AND h.id <> r.id
       AND EXISTS (SELECT 1 FROM import_rows m WHERE m.kind = 'item' AND m.id = h.id)`);

  onStep('location tree');
  await checkTree(db);
}

/**
 * Cycles and depth in the tree as it will be after the write: the file's locations
 * with their new parents, above them their ancestors already in the database (so a
 * cycle through database locations is found), then depths assigned level by level
 * from the roots. Each level is one statement; there are at most maxLocationDepth
 * of them. A file location left without a depth is in a cycle, hangs under one, or is
 * nested too deep (locationPath would cut its path); classifyTree tells which.
 */
async function checkTree(db: ImportSession): Promise<void> {
  const maxDepth = LIMITS.maxLocationDepth;
  // The first row wins for an id given twice (a duplicate, reported above).
  await db.run(`
    INSERT INTO import_tree (id, parent_id, row_no, gen)
    SELECT id, parent_id, row_no, 0 FROM import_rows WHERE kind = 'location' ORDER BY row_no
    ON CONFLICT (id) DO NOTHING`);
  for (let gen = 1; gen <= maxDepth; gen++) {
    const added = await db.run(
      `INSERT INTO import_tree (id, parent_id, row_no, gen)
       SELECT DISTINCT s.id, s.parent_id, CAST(NULL AS INTEGER), CAST(? AS INTEGER)
         FROM import_tree t JOIN records s ON s.kind = 'location' AND s.id = t.parent_id
        WHERE t.gen = ? AND NOT EXISTS (SELECT 1 FROM import_tree x WHERE x.id = t.parent_id)
       ON CONFLICT (id) DO NOTHING`,
      [gen, gen - 1],
    );
    if (added === 0) break;
  }
  await db.analyze('import_tree');
  // Roots: no parent, or a parent that is no location at all (reported as missing).
  await db.run(`
    UPDATE import_tree SET depth = 1
     WHERE parent_id IS NULL
        OR (NOT EXISTS (SELECT 1 FROM import_tree p WHERE p.id = import_tree.parent_id)
            AND NOT EXISTS (SELECT 1 FROM records s WHERE s.kind = 'location' AND s.id = import_tree.parent_id))`);
  for (let depth = 2; depth <= maxDepth; depth++) {
    const placed = await db.run(
      `UPDATE import_tree SET depth = ?
        WHERE id IN (SELECT c.id FROM import_tree p JOIN import_tree c ON c.parent_id = p.id WHERE p.depth = ? AND c.depth IS NULL)`,
      [depth, depth - 1],
    );
    if (placed === 0) break;
  }
  await db.run(`
    INSERT INTO import_problems (row_no, code, kind, ref)
    SELECT row_no, 'tree', 'location', id FROM import_tree WHERE row_no IS NOT NULL AND depth IS NULL`);
}

interface ProblemRow {
  row_no: number;
  code: 'duplicate-id' | 'duplicate-asset' | 'missing-parent' | 'asset-taken' | 'tree';
  kind: string | null;
  ref: string | null;
  /** pg returns BIGINT as text. */
  asset_id: number | string | null;
  other_row: number | null;
}

/** The number of problems found set-wise, and the first `limit` of them (by row) in words. */
export async function listProblems(db: ImportSession, limit: number): Promise<{ total: number; first: { row: number; message: string }[] }> {
  const [count] = await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM import_problems');
  const total = Number(count?.n ?? 0);
  if (total === 0) return { total, first: [] };
  const rows = await db.all<ProblemRow>(
    'SELECT row_no, code, kind, ref, asset_id, other_row FROM import_problems ORDER BY row_no, code LIMIT ?',
    [limit],
  );
  const tree = await classifyTree(db, rows.filter((r) => r.code === 'tree').map((r) => r.ref!));
  // Staged values passed the row checks (ids match LIMITS.idPattern), so they are safe to print.
  const first = rows.map((r) => {
    const asset = r.asset_id === null ? '' : formatAssetId(Number(r.asset_id));
    switch (r.code) {
      case 'duplicate-id':
        return { row: r.row_no, message: `duplicate ${r.kind} id '${r.ref}' (also row ${r.other_row})` };
      case 'duplicate-asset':
        return { row: r.row_no, message: `duplicate asset_id ${asset} (also row ${r.other_row})` };
      case 'missing-parent':
        return { row: r.row_no, message: `parent_id '${r.ref}' is not a location in the file or the database` };
      case 'asset-taken':
        return { row: r.row_no, message: `asset_id ${asset} already belongs to item '${r.ref}' in the database` };
      case 'tree':
        return { row: r.row_no, message: tree.get(r.ref!) ?? `location '${r.ref}' is in a parent_id cycle or nested too deep` };
    }
  });
  return { total, first };
}

/**
 * Why each location got no depth, found by walking up its parents (in batches: one
 * query per step for all of them). Back at the start: a cycle. At a location seen
 * before: under a cycle. Neither within twice the depth limit: nested too deep.
 */
async function classifyTree(db: ImportSession, ids: string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const walks = new Map(ids.map((id) => [id, { path: [id], seen: new Set([id]) }]));
  const fromDatabase = new Set<string>();
  for (let step = 0; step < 2 * LIMITS.maxLocationDepth + 2 && walks.size > 0; step++) {
    const heads = [...new Set([...walks.values()].map((w) => w.path.at(-1)!))];
    const parents = new Map<string, string | null>();
    for (let i = 0; i < heads.length; i += 500) {
      const batch = heads.slice(i, i + 500);
      const rows = await db.all<{ id: string; parent_id: string | null; row_no: number | null }>(
        `SELECT id, parent_id, row_no FROM import_tree WHERE id IN (${batch.map(() => '?').join(', ')})`,
        batch,
      );
      for (const r of rows) {
        parents.set(r.id, r.parent_id);
        if (r.row_no === null) fromDatabase.add(r.id);
      }
    }
    for (const [start, walk] of walks) {
      const next = parents.get(walk.path.at(-1)!) ?? null;
      if (next === null || !parents.has(walk.path.at(-1)!)) {
        result.set(start, `location '${start}' is nested more than ${LIMITS.maxLocationDepth} levels deep`);
      } else if (next === start) {
        const shown = [...walk.path, start].map((id) => (fromDatabase.has(id) ? `${id} (in the database)` : id));
        const path = shown.length > 8 ? [...shown.slice(0, 4), '…', ...shown.slice(-3)] : shown;
        result.set(start, `location '${start}' is its own ancestor (parent_id cycle: ${path.join(' → ')})`);
      } else if (walk.seen.has(next)) {
        result.set(start, `location '${start}' hangs under a parent_id cycle (through '${next}')`);
      } else {
        walk.path.push(next);
        walk.seen.add(next);
        continue;
      }
      walks.delete(start);
    }
  }
  for (const start of walks.keys()) {
    result.set(start, `location '${start}' is nested more than ${LIMITS.maxLocationDepth} levels deep (its parent chain runs on past ${2 * LIMITS.maxLocationDepth + 2} locations: a very deep tree or a long parent_id cycle)`);
  }
  return result;
}

/**
 * Flags staged rows the database already holds exactly as they are (run with the
 * checks, outside the write lock): the write skips them, so re-importing an export
 * holds the lock only for what changed. Valid as long as the records revision is.
 */
export async function markUnchanged(db: ImportSession): Promise<void> {
  await db.run('DELETE FROM import_unchanged'); // a second pass after another import wrote
  // The nullable columns are compared through COALESCE ('' and 0 are never valid values):
  // a bare `IS NOT DISTINCT FROM` lets SQLite's planner pick the asset_id or parent_id
  // index, and for the NULLs that means walking half the table per row. The row numbers
  // go to a table of their own: flagging a million staged rows in place rewrote them all
  // (10 s, against 1.5 s for this).
  await db.run(`
    INSERT INTO import_unchanged (row_no)
    SELECT r.row_no FROM import_rows r
     WHERE EXISTS (SELECT 1 FROM records s
                    WHERE s.kind = r.kind AND s.id = r.id AND s.name = r.name AND s.description = r.description
                      AND COALESCE(s.parent_id, '') = COALESCE(r.parent_id, '')
                      AND COALESCE(s.asset_id, 0) = COALESCE(r.asset_id, 0) AND COALESCE(s.fields, '') = COALESCE(r.fields, ''))`);
}

/**
 * The write: free asset ids that move to other items, then insert or update every
 * changed staged row in key order. Unchanged records are left alone (their updated_at
 * too), so re-importing the same file writes nothing. Returns the number of records written.
 */
export async function mergeStaged(db: ImportSession, now: string): Promise<number> {
  await appendStagedEvents(db, now);
  // The revision next: every record this write changes carries it as its content_rev,
  // which is how a printed label (which carries the revision read before its record was)
  // knows it is out of date (sql/label-state.ts).
  await db.run('UPDATE records_revision SET revision = revision + 1');
  await db.run(`UPDATE records SET asset_id = NULL, content_rev = (SELECT revision FROM records_revision)
                 WHERE kind = 'item' AND id IN (SELECT id FROM import_asset_moves)`);
  const written = await db.run(
    `INSERT INTO records (kind, id, name, description, parent_id, asset_id, updated_at, fields, content_rev)
     SELECT kind, id, name, description, parent_id, asset_id, CAST(? AS TEXT), fields, (SELECT revision FROM records_revision) FROM import_rows
      WHERE row_no NOT IN (SELECT row_no FROM import_unchanged) ORDER BY kind, id
     ON CONFLICT (kind, id) DO UPDATE SET name = excluded.name, description = excluded.description,
       parent_id = excluded.parent_id, asset_id = excluded.asset_id, updated_at = excluded.updated_at, fields = excluded.fields, content_rev = excluded.content_rev
     WHERE records.name IS DISTINCT FROM excluded.name OR records.description IS DISTINCT FROM excluded.description
        OR records.parent_id IS DISTINCT FROM excluded.parent_id OR records.asset_id IS DISTINCT FROM excluded.asset_id
        OR records.fields IS DISTINCT FROM excluded.fields`,
    [now],
  );
  return written;
}

/**
 * The outbox's side of the write (sql/events.ts), set-wise and before it: record.created
 * for a staged row the database does not hold, record.changed (with the record as it
 * was) for one it holds otherwise; unchanged rows append nothing. In row order.
 */
async function appendStagedEvents(db: ImportSession, now: string): Promise<void> {
  const d = DIALECTS[db.dialect];
  await lockEvents({ dialect: d, run: (sql) => db.run(sql) });
  await db.run(
    `INSERT INTO events (type, subject_kind, subject_id, occurred_at, data)
     SELECT CASE WHEN s.id IS NULL THEN 'record.created' ELSE 'record.changed' END, r.kind, r.id, CAST(? AS TEXT),
            ${d.jsonText(`CASE WHEN s.id IS NULL THEN ${d.jsonObject(`'record', ${recordJson(d, 'r', 'CAST(? AS TEXT)')}`)}
                                ELSE ${d.jsonObject(`'record', ${recordJson(d, 'r', 'CAST(? AS TEXT)')}, 'previous', ${recordJson(d, 's')}`)} END`)}
       FROM import_rows r LEFT JOIN records s ON s.kind = r.kind AND s.id = r.id
      WHERE r.row_no NOT IN (SELECT row_no FROM import_unchanged)
      ORDER BY r.row_no`,
    [now, now, now],
  );
}

const DIALECTS = { sqlite: SQLITE, postgres: POSTGRES } as const;

/** The records revision the current transaction sees (bumped by every import's write). */
export async function readRevision(db: Pick<ImportSession, 'all'>): Promise<number> {
  const [row] = await db.all<{ revision: number | string }>('SELECT revision FROM records_revision');
  return Number(row?.revision ?? 0);
}
