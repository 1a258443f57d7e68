/**
 * Saved label templates (migration 7) for both stores: one set of SQL texts, in the
 * dialect's placeholders, and one row mapper. Conditional writes carry their
 * condition in the statement (INSERT ... ON CONFLICT DO NOTHING, UPDATE/DELETE ...
 * WHERE etag = ?), so the check and the write are one atomic step on both databases.
 *
 * A replace or delete that happened appends `template.changed` / `template.deleted` to the
 * outbox (sql/events.ts) in the same transaction (putTemplate, deleteTemplate: the caller's
 * Runner is inside one), so the label-staleness consumer announces labels printed with the
 * template's previous version at once (src/events/label-staleness.ts). A create appends
 * nothing: no printed label can name a version of a template that did not exist.
 */
import type { NewEvent, SavedTemplate } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { appendEvents } from './events.js';
import type { Runner } from './printers.js';

const COLUMNS = 'name, design, logo_width, logo_height, logo_rows, etag, created_at, updated_at';

/** The statements, written with `?` placeholders; createParams and replaceParams give their values. */
const TEMPLATE_SQL = {
  list: `SELECT ${COLUMNS} FROM label_templates ORDER BY name`,
  get: `SELECT ${COLUMNS} FROM label_templates WHERE name = ?`,
  count: 'SELECT COUNT(*) AS n FROM label_templates',
  create: `INSERT INTO label_templates (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
  replace: `UPDATE label_templates SET design = ?, logo_width = ?, logo_height = ?, logo_rows = ?, etag = ?, updated_at = ? WHERE name = ? AND etag = ?`,
  delete: 'DELETE FROM label_templates WHERE name = ? AND etag = ?',
} as const;

/** The template statements in a dialect's placeholders. */
export function templateSql(d: SqlDialect): Record<keyof typeof TEMPLATE_SQL, string> {
  return {
    list: d.placeholders(TEMPLATE_SQL.list),
    get: d.placeholders(TEMPLATE_SQL.get),
    count: d.placeholders(TEMPLATE_SQL.count),
    create: d.placeholders(TEMPLATE_SQL.create),
    replace: d.placeholders(TEMPLATE_SQL.replace),
    delete: d.placeholders(TEMPLATE_SQL.delete),
  };
}

export interface TemplateRow {
  name: string;
  design: string;
  logo_width: number | null;
  logo_height: number | null;
  logo_rows: Buffer | Uint8Array | null;
  etag: string;
  created_at: string;
  updated_at: string;
}

export function toSavedTemplate(row: TemplateRow): SavedTemplate {
  const logo =
    row.logo_rows && row.logo_width !== null && row.logo_height !== null
      ? { width: Number(row.logo_width), height: Number(row.logo_height), rows: Buffer.from(row.logo_rows) }
      : null;
  return { name: row.name, design: row.design, logo, etag: row.etag, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function createParams(t: SavedTemplate): unknown[] {
  return [t.name, t.design, t.logo?.width ?? null, t.logo?.height ?? null, t.logo ? Buffer.from(t.logo.rows) : null, t.etag, t.createdAt, t.updatedAt];
}

export function replaceParams(t: SavedTemplate, ifEtag: string): unknown[] {
  return [t.design, t.logo?.width ?? null, t.logo?.height ?? null, t.logo ? Buffer.from(t.logo.rows) : null, t.etag, t.updatedAt, t.name, ifEtag];
}

/** A template event's subject and data: the template's name, and (changed) its new version. */
function templateEvent(type: 'template.changed' | 'template.deleted', name: string, etag?: string): NewEvent {
  return { type, subject: { kind: 'template', id: name }, data: etag === undefined ? { template: { name } } : { template: { name, etag } } };
}

/** Creates (`ifEtag` null) or replaces a template; a replace appends template.changed. Inside the caller's transaction. */
export async function putTemplate(q: Runner, t: SavedTemplate, ifEtag: string | null): Promise<boolean> {
  const sql = templateSql(q.dialect);
  const changed = ifEtag === null ? await q.run(sql.create, createParams(t)) : await q.run(sql.replace, replaceParams(t, ifEtag));
  if (changed > 0 && ifEtag !== null) await appendEvents(q, [templateEvent('template.changed', t.name, t.etag)]);
  return changed > 0;
}

/** Deletes a template at `ifEtag` and appends template.deleted. Inside the caller's transaction. */
export async function deleteTemplate(q: Runner, name: string, ifEtag: string): Promise<boolean> {
  const changed = await q.run(templateSql(q.dialect).delete, [name, ifEtag]);
  if (changed > 0) await appendEvents(q, [templateEvent('template.deleted', name)]);
  return changed > 0;
}
