/**
 * How the contract targets produce each documented answer of the sheet-calibration
 * operations: real conditions on the server (each answer on a sheet product of its
 * own, so calls never meet); 408 and 431, and the mock, take the spec's example
 * request (suite.ts exampleCall). Kept apart from targets.ts, which calls in here.
 */
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const CALIBRATION_OPS = new Set(['getSheetCalibration', 'putSheetCalibration', 'deleteSheetCalibration']);

const PATH = '/v1/labelmaker/sheet-calibrations';
const BODY = { offsetXMm: -0.5, offsetYMm: 1 };
/** Never saved on the contract server: its reads and deletes are 404s. */
const NEVER_SAVED = 'herma-4226';

const call = (operationId: string, sheet: string, extra: Partial<Call> = {}): Call =>
  operationId === 'putSheetCalibration' ? { path: `${PATH}/${sheet}`, method: 'PUT', body: BODY, ...extra } : { path: `${PATH}/${sheet}`, method: operationId === 'getSheetCalibration' ? 'GET' : 'DELETE', ...extra };

/** Saves (or, with `undefined`, clears) a product's calibration on the server itself. */
async function setSaved(srv: TestServer, sheet: string, saved: boolean): Promise<void> {
  const res = await fetch(`${srv.url}${PATH}/${sheet}`, {
    method: saved ? 'PUT' : 'DELETE',
    headers: { Authorization: `Bearer ${srv.tokens.editor}`, 'Content-Type': 'application/json' },
    body: saved ? JSON.stringify(BODY) : undefined,
  });
  if (![200, 201, 204, 404].includes(res.status)) throw new Error(`could not ${saved ? 'save' : 'clear'} ${sheet}: ${res.status} ${await res.text()}`);
}

export async function calibrationCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  // Changes need templates:write (the editor); reads labels:read (the target's token has it).
  const token = operationId === 'getSheetCalibration' ? undefined : srv.tokens.editor;
  const on = (sheet: string, extra: Partial<Call> = {}) => call(operationId, sheet, { token, ...extra });
  switch (status) {
    case 200:
      if (operationId === 'getSheetCalibration') await setSaved(srv, 'avery-5163', true);
      if (operationId === 'putSheetCalibration') await setSaved(srv, 'avery-5167', true);
      return on(operationId === 'getSheetCalibration' ? 'avery-5163' : 'avery-5167');
    case 201:
      await setSaved(srv, 'avery-l7651', false);
      return on('avery-l7651');
    case 204:
      await setSaved(srv, 'avery-22806', true);
      return on('avery-22806');
    case 400:
      return operationId === 'putSheetCalibration' ? on('avery-5163', { body: { offsetXMm: 9, offsetYMm: 0 } }) : on('avery-9999');
    case 401:
      return on(NEVER_SAVED, { token: null });
    case 403:
      return on(NEVER_SAVED, { token: operationId === 'getSheetCalibration' ? srv.tokens.printOnly : srv.tokens.read });
    case 404:
      return on(NEVER_SAVED);
    case 406:
      return on(NEVER_SAVED, { headers: { Accept: 'image/png' } });
    case 413:
      return { path: `${PATH}/avery-5163`, method: 'PUT', token, rawBody: { type: 'application/json', data: JSON.stringify({ ...BODY, padding: 'x'.repeat(700 * 1024) }) } };
    case 415:
      return { path: `${PATH}/avery-5163`, method: 'PUT', token, rawBody: { type: 'text/plain', data: JSON.stringify(BODY) } };
    default:
      return undefined;
  }
}
