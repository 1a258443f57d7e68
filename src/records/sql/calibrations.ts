/**
 * Saved sheet calibrations (migration 13) for both stores: one set of SQL texts, in
 * the dialect's placeholders, and one row mapper. A save is one upsert: the last one wins.
 */
import type { SheetCalibration } from '../types.js';
import type { SqlDialect } from './dialect.js';

const COLUMNS = 'sheet, offset_x_mm, offset_y_mm, updated_at';

/** The statements, written with `?` placeholders; putParams gives a save's values. */
const CALIBRATION_SQL = {
  get: `SELECT ${COLUMNS} FROM sheet_calibrations WHERE sheet = ?`,
  put: `INSERT INTO sheet_calibrations (${COLUMNS}) VALUES (?, ?, ?, ?)
        ON CONFLICT (sheet) DO UPDATE SET offset_x_mm = excluded.offset_x_mm, offset_y_mm = excluded.offset_y_mm, updated_at = excluded.updated_at`,
  delete: 'DELETE FROM sheet_calibrations WHERE sheet = ?',
} as const;

/** The calibration statements in a dialect's placeholders. */
export function calibrationSql(d: SqlDialect): Record<keyof typeof CALIBRATION_SQL, string> {
  return {
    get: d.placeholders(CALIBRATION_SQL.get),
    put: d.placeholders(CALIBRATION_SQL.put),
    delete: d.placeholders(CALIBRATION_SQL.delete),
  };
}

export interface CalibrationRow {
  sheet: string;
  offset_x_mm: number;
  offset_y_mm: number;
  updated_at: string;
}

export function toCalibration(row: CalibrationRow): SheetCalibration {
  return { sheet: row.sheet, offsetXMm: Number(row.offset_x_mm), offsetYMm: Number(row.offset_y_mm), updatedAt: row.updated_at };
}

export function putParams(c: SheetCalibration): unknown[] {
  return [c.sheet, c.offsetXMm, c.offsetYMm, c.updatedAt];
}
