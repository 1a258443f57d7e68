/**
 * Saved sheet calibrations (migration 12) for both stores: one set of SQL texts,
 * written with `?` placeholders (numbered for PostgreSQL by templates-sql.ts
 * `numbered`), and one row mapper. A save is one upsert: the last one wins.
 */
import type { SheetCalibration } from './types.js';

const COLUMNS = 'sheet, offset_x_mm, offset_y_mm, updated_at';

export const CALIBRATION_SQL = {
  get: `SELECT ${COLUMNS} FROM sheet_calibrations WHERE sheet = ?`,
  put: `INSERT INTO sheet_calibrations (${COLUMNS}) VALUES (?, ?, ?, ?)
        ON CONFLICT (sheet) DO UPDATE SET offset_x_mm = excluded.offset_x_mm, offset_y_mm = excluded.offset_y_mm, updated_at = excluded.updated_at`,
  delete: 'DELETE FROM sheet_calibrations WHERE sheet = ?',
} as const;

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
