/**
 * Saved sheet calibrations (getSheetCalibration, putSheetCalibration,
 * deleteSheetCalibration): one printer offset per sheet product, which createSheet
 * applies when a request gives none (sheetOffset in selection-labels.ts). The spec's enum has checked the
 * product and its bounds the offsets.
 */
import type { components } from '../../generated/openapi.js';
import { isoTimestamp, type SheetCalibration, type SheetCalibrationStore } from '../records/index.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';

type CalibrationBody = components['schemas']['SheetCalibration'];

export function calibrationHandlers(store: SheetCalibrationStore): Pick<Handlers, 'getSheetCalibration' | 'putSheetCalibration' | 'deleteSheetCalibration'> {
  const notFound = (sheet: string) => new HttpProblem('not-found', `No calibration is saved for ${sheet}; its sheets print without an offset.`);
  return {
    async getSheetCalibration(c, _req, res) {
      const saved = await store.get(c.request.params.sheet);
      if (!saved) throw notFound(c.request.params.sheet);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, calibrationBody(saved));
    },

    async putSheetCalibration(c, _req, res) {
      const { sheet } = c.request.params;
      const { offsetXMm, offsetYMm } = c.request.requestBody;
      // Last writer wins: 201 or 200 only tells the caller whether one was saved before.
      const existed = (await store.get(sheet)) !== undefined;
      const saved: SheetCalibration = { sheet, offsetXMm, offsetYMm, updatedAt: isoTimestamp(new Date()) };
      await store.put(saved);
      res.set('Cache-Control', 'no-store');
      sendJson(res, existed ? 200 : 201, calibrationBody(saved));
    },

    async deleteSheetCalibration(c, _req, res) {
      if (!(await store.delete(c.request.params.sheet))) throw notFound(c.request.params.sheet);
      res.status(204).end();
    },
  };
}

function calibrationBody(c: SheetCalibration): CalibrationBody {
  return { sheet: c.sheet as CalibrationBody['sheet'], offsetXMm: c.offsetXMm, offsetYMm: c.offsetYMm, updatedAt: c.updatedAt };
}
