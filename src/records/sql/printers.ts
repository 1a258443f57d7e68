/**
 * The printer fleet (migration 14) for both stores: the SQL, the row mapper, and the
 * steps of each write, written once over a Runner that each dialect provides (SQLite:
 * the writer's connection, inside the writer's transaction; PostgreSQL: one transaction
 * holding the fleet's advisory lock). A write's check (the ETag, a free name, waiting
 * jobs) and its change run in that one transaction, and so does moving the default.
 */
import { randomBytes } from 'node:crypto';
import { isoTimestamp } from '../rows.js';
import type { PrinterDeletion, PrinterSettings, PrinterStatusReading, SavedPrinter } from '../types.js';
import type { SqlDialect } from './dialect.js';

/** Statements of one transaction (or a plain read), in the dialect's placeholders. */
export interface Runner {
  readonly dialect: SqlDialect;
  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** The number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

const SETTINGS = 'title, device_uri, model, location_id, stocks, red, is_default, source, agent';

const SELECT = `SELECT p.name, p.title, p.device_uri, p.model, p.location_id, p.stocks, p.red, p.is_default, p.source, p.agent, p.etag, p.created_at, p.updated_at,
       s.status, s.checked_at,
       (SELECT COUNT(*) FROM printer_reach r WHERE r.name = p.name) AS reach_probed,
       (SELECT COUNT(*) FROM printer_reach r WHERE r.name = p.name AND r.reachable = 1) AS reach_reaching
  FROM printers p LEFT JOIN printer_status s ON s.name = p.name`;

/** Jobs waiting or being sent, for a printer; `default` also takes jobs naming no known printer (stored before the fleet). */
const PENDING_JOBS = `SELECT COUNT(*) AS n FROM print_jobs
  WHERE state IN ('queued', 'printing')
    AND (printer = ? OR (? = 'default' AND printer NOT IN (SELECT name FROM printers)))`;

/** With no default printer left (the default deleted, or the first printer made), the oldest printer becomes it. */
const ensureDefault = (d: SqlDialect) => `UPDATE printers SET is_default = 1
  WHERE name = (SELECT name FROM printers ORDER BY created_at, ${d.binary('name')} LIMIT 1)
    AND NOT EXISTS (SELECT 1 FROM printers WHERE is_default = 1)`;

export interface PrinterRow {
  name: string;
  title: string;
  device_uri: string;
  model: string | null;
  location_id: string | null;
  stocks: string;
  red: number;
  is_default: number;
  source: string;
  /** Migration 16: the agent that reaches it, or null (the service does). */
  agent: string | null;
  etag: string;
  created_at: string;
  updated_at: string;
  status: string | null;
  checked_at: string | null;
  reach_probed: number | string;
  reach_reaching: number | string;
}

export function toSavedPrinter(row: PrinterRow): SavedPrinter {
  return {
    name: row.name,
    title: row.title,
    deviceUri: row.device_uri,
    model: row.model,
    locationId: row.location_id,
    stocks: JSON.parse(row.stocks) as string[],
    red: Number(row.red) === 1,
    isDefault: Number(row.is_default) === 1,
    source: row.source === 'config' ? 'config' : 'api',
    agent: row.agent ?? null,
    etag: row.etag,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status === null ? null : (JSON.parse(row.status) as PrinterStatusReading),
    // Absent until some instance probed it (no instance polls, or none has yet): unknown, never "unreachable".
    ...(Number(row.reach_probed) > 0 ? { reach: { probed: Number(row.reach_probed), reaching: Number(row.reach_reaching) } } : {}),
  };
}

/** A new strong ETag (quotes included). */
function newEtag(): string {
  return `"${randomBytes(12).toString('base64url')}"`;
}

const settingsValues = (p: PrinterSettings) => [p.title, p.deviceUri, p.model, p.locationId, JSON.stringify(p.stocks), p.red ? 1 : 0, p.isDefault ? 1 : 0, p.source, p.agent ?? null];

export async function listPrinters(q: Runner): Promise<SavedPrinter[]> {
  return (await q.all<PrinterRow>(`${SELECT} ORDER BY ${q.dialect.binary('p.name')}`)).map(toSavedPrinter);
}

export async function getPrinter(q: Runner, name: string): Promise<SavedPrinter | undefined> {
  const [row] = await q.all<PrinterRow>(q.dialect.placeholders(`${SELECT} WHERE p.name = ?`), [name]);
  return row && toSavedPrinter(row);
}

export async function pendingJobs(q: Runner, name: string): Promise<number> {
  const [row] = await q.all<{ n: number | string }>(q.dialect.placeholders(PENDING_JOBS), [name, name]);
  return Number(row?.n ?? 0);
}

/** PrinterStore.put, inside the caller's transaction. */
export async function putPrinter(q: Runner, p: PrinterSettings, ifEtag: string | null | undefined): Promise<SavedPrinter | undefined> {
  const d = q.dialect;
  const [current] = await q.all<{ etag: string; device_uri: string }>(d.placeholders('SELECT etag, device_uri FROM printers WHERE name = ?'), [p.name]);
  if (current ? ifEtag === null : typeof ifEtag === 'string') return undefined;
  if (current && typeof ifEtag === 'string' && current.etag !== ifEtag) return undefined;
  const now = isoTimestamp(new Date());
  // The default moves here: every other printer loses it first (the unique index allows one).
  if (p.isDefault) await q.run(d.placeholders('UPDATE printers SET is_default = 0 WHERE is_default = 1 AND name <> ?'), [p.name]);
  if (current) {
    // false keeps the flag where it is: only another printer's true (or a delete) moves it.
    await q.run(
      d.placeholders(`UPDATE printers SET title = ?, device_uri = ?, model = ?, location_id = ?, stocks = ?, red = ?,
         is_default = CASE WHEN ? = 1 THEN 1 ELSE is_default END, source = ?, agent = ?, etag = ?, updated_at = ? WHERE name = ?`),
      [...settingsValues(p), newEtag(), now, p.name],
    );
    // Who reached the old address says nothing of the new one: every instance probes it afresh.
    if (current.device_uri !== p.deviceUri) await q.run(d.placeholders('DELETE FROM printer_reach WHERE name = ?'), [p.name]);
  } else {
    await q.run(d.placeholders(`INSERT INTO printers (name, ${SETTINGS}, etag, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), [
      p.name,
      ...settingsValues(p),
      newEtag(),
      now,
      now,
    ]);
  }
  await q.run(ensureDefault(d));
  return getPrinter(q, p.name);
}

/** PrinterStore.delete, inside the caller's transaction. */
export async function deletePrinter(q: Runner, name: string, ifEtag: string | undefined): Promise<PrinterDeletion> {
  const d = q.dialect;
  const [current] = await q.all<{ etag: string }>(d.placeholders('SELECT etag FROM printers WHERE name = ?'), [name]);
  if (!current) return 'missing';
  if (ifEtag !== undefined && current.etag !== ifEtag) return 'changed';
  if ((await pendingJobs(q, name)) > 0) return 'has-jobs';
  await q.run(d.placeholders('DELETE FROM printer_status WHERE name = ?'), [name]);
  await q.run(d.placeholders('DELETE FROM printer_reach WHERE name = ?'), [name]);
  await q.run(d.placeholders('DELETE FROM printers WHERE name = ?'), [name]);
  await q.run(ensureDefault(d));
  return 'deleted';
}

/** PrinterStore.saveStatus: one statement; a reading older than the stored one changes nothing. */
export async function savePrinterStatus(q: Runner, name: string, status: PrinterStatusReading): Promise<boolean> {
  const changed = await q.run(
    q.dialect.placeholders(`INSERT INTO printer_status (name, status, checked_at)
       SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM printers WHERE name = ?)
       ON CONFLICT (name) DO UPDATE SET status = excluded.status, checked_at = excluded.checked_at
       WHERE printer_status.checked_at <= excluded.checked_at`),
    [name, JSON.stringify(status), status.checkedAt, name],
  );
  return changed > 0;
}

/**
 * PrinterStore.claimStatusRead: one statement. The stored time of a printer's reading
 * (printer_status.checked_at) is also when an instance last took it to read: set to `at`
 * only where it is older than `staleBefore`, so of two instances only one gets it. A
 * printer never read gets a row whose status is JSON null (shown as no reading).
 */
export async function claimPrinterStatusRead(q: Runner, name: string, at: string, staleBefore: string): Promise<boolean> {
  const changed = await q.run(
    q.dialect.placeholders(`INSERT INTO printer_status (name, status, checked_at)
       SELECT ?, 'null', ? WHERE EXISTS (SELECT 1 FROM printers WHERE name = ?)
       ON CONFLICT (name) DO UPDATE SET checked_at = excluded.checked_at
       WHERE printer_status.checked_at < ?`),
    [name, at, name, staleBefore],
  );
  return changed > 0;
}

/**
 * PrinterStore.saveReach: this instance's probe of a printer (at its URI `deviceUri`, so a
 * probe that raced a URI change stores nothing), and the rows of instances that stopped
 * reporting (checked before `staleBefore`) deleted. Returns how many live instances reach
 * it now, or undefined when no printer has that name and URI.
 */
export async function savePrinterReach(q: Runner, name: string, deviceUri: string, instance: string, reachable: boolean, at: string, staleBefore: string): Promise<number | undefined> {
  const d = q.dialect;
  const changed = await q.run(
    d.placeholders(`INSERT INTO printer_reach (name, instance, reachable, checked_at)
       SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM printers WHERE name = ? AND device_uri = ?)
       ON CONFLICT (name, instance) DO UPDATE SET reachable = excluded.reachable, checked_at = excluded.checked_at`),
    [name, instance, reachable ? 1 : 0, at, name, deviceUri],
  );
  if (changed === 0) return undefined;
  await q.run(d.placeholders('DELETE FROM printer_reach WHERE name = ? AND checked_at < ?'), [name, staleBefore]);
  const [row] = await q.all<{ n: number | string }>(d.placeholders('SELECT COUNT(*) AS n FROM printer_reach WHERE name = ? AND reachable = 1'), [name]);
  return Number(row?.n ?? 0);
}
