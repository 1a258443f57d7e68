/**
 * How the contract targets produce each documented answer of the printer operations:
 * real conditions on the server (each call on a printer of its own, so calls never
 * meet; the contract server's PRINTER_URI is the configuration's printer `default`),
 * `Prefer: code=` on the mock. Kept apart from targets.ts, which calls in here.
 */
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const PRINTER_OPS = new Set(['listPrinters', 'getPrinter', 'putPrinter', 'deletePrinter', 'refreshPrinterStatus']);

export const PRINTERS = '/v1/labelmaker/printers';
/** A printer body the server takes: a folder printer (nothing is contacted) with a stock it knows. */
export const PRINTER_BODY = { title: 'Contract printer', deviceUri: 'file:///tmp/lm-contract-printer', stocks: ['brother-ql-62x29'] };
const HUGE_HEADER = { 'X-Padding': 'x'.repeat(17 * 1024) };
/** The printer PRINTER_URI defines: read-only through the API. */
const FROM_CONFIG = `${PRINTERS}/default`;

const fresh = () => `${PRINTERS}/contract-${randomUUID().slice(0, 8)}`;

/** A printer made through the API for one call: its path and ETag. */
async function newPrinter(srv: TestServer): Promise<{ path: string; etag: string }> {
  const path = fresh();
  const res = await fetch(srv.url + path, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
    body: JSON.stringify(PRINTER_BODY),
  });
  if (res.status !== 201) throw new Error(`could not create ${path}: ${res.status} ${await res.text()}`);
  return { path, etag: res.headers.get('etag')! };
}

export async function printerCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const admin = srv.tokens.admin;
  if (operationId === 'listPrinters') {
    switch (status) {
      case 200: return { path: PRINTERS };
      case 400: return { path: `${PRINTERS}?kind=item` }; // a record's kind without its id
      case 401: return { path: PRINTERS, token: null };
      case 403: return { path: PRINTERS, token: srv.tokens.read }; // labels:read is not enough
      case 404: return { path: `${PRINTERS}?kind=item&id=no-such-record` }; // a label of no record
      case 406: return { path: PRINTERS, headers: { Accept: 'image/png' } };
      case 408: return { path: PRINTERS, stall: true };
      case 431: return { path: PRINTERS, headers: HUGE_HEADER };
      default: return undefined;
    }
  }
  if (operationId === 'getPrinter') {
    switch (status) {
      case 200: return { path: (await newPrinter(srv)).path };
      case 400: return { path: `${PRINTERS}/Bad_Name` };
      case 401: return { path: FROM_CONFIG, token: null };
      case 403: return { path: FROM_CONFIG, token: srv.tokens.read };
      case 404: return { path: fresh() };
      case 406: return { path: FROM_CONFIG, headers: { Accept: 'image/png' } };
      case 408: return { path: FROM_CONFIG, stall: true };
      case 431: return { path: FROM_CONFIG, headers: HUGE_HEADER };
      default: return undefined;
    }
  }
  if (operationId === 'refreshPrinterStatus') {
    // A folder printer: read at once (its protocol cannot tell: unknown), nothing hangs.
    const refresh = (path: string, extra: Partial<Call> = {}): Call => ({ path: `${path}/status`, method: 'POST', ...extra });
    switch (status) {
      case 200: return refresh((await newPrinter(srv)).path);
      case 400: return refresh(`${PRINTERS}/Bad_Name`);
      case 401: return refresh(FROM_CONFIG, { token: null });
      case 403: return refresh(FROM_CONFIG, { token: srv.tokens.read }); // labels:read is not enough
      case 404: return refresh(fresh());
      case 406: return refresh(FROM_CONFIG, { headers: { Accept: 'image/png' } });
      case 408: return refresh(FROM_CONFIG, { stall: true });
      case 431: return refresh(FROM_CONFIG, { headers: HUGE_HEADER });
      default: return undefined;
    }
  }
  const put = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'PUT', body: PRINTER_BODY, token: admin, ...extra });
  if (operationId === 'putPrinter') {
    switch (status) {
      case 200: {
        const p = await newPrinter(srv);
        return put(p.path, { headers: { 'If-Match': p.etag } });
      }
      case 201: return put(fresh(), { headers: { 'If-None-Match': '*' } });
      case 400: return put(fresh(), { body: { ...PRINTER_BODY, colour: 'red' } });
      case 401: return put(fresh(), { token: null });
      case 403: return put(fresh(), { token: srv.tokens.print }); // labels:print does not define printers
      case 406: return put(fresh(), { headers: { Accept: 'image/png' } });
      case 408: return put(fresh(), { stall: true });
      case 409: return put(FROM_CONFIG);
      case 412: return put((await newPrinter(srv)).path, { headers: { 'If-Match': '"stale"' } });
      case 413: return { path: fresh(), method: 'PUT', token: admin, rawBody: { type: 'application/json', data: JSON.stringify({ ...PRINTER_BODY, title: 'x'.repeat(700 * 1024) }) } };
      case 415: return { path: fresh(), method: 'PUT', token: admin, rawBody: { type: 'text/plain', data: JSON.stringify(PRINTER_BODY) } };
      case 422: return put(fresh(), { body: { ...PRINTER_BODY, stocks: ['brother-dk-11209'] } });
      case 431: return put(fresh(), { headers: HUGE_HEADER });
      default: return undefined;
    }
  }
  const del = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'DELETE', token: admin, ...extra });
  switch (status) {
    case 204: {
      const p = await newPrinter(srv);
      return del(p.path, { headers: { 'If-Match': p.etag } });
    }
    case 400: return del(`${PRINTERS}/Bad_Name`);
    case 401: return del(fresh(), { token: null });
    case 403: return del(fresh(), { token: srv.tokens.print });
    case 404: return del(fresh());
    case 406: return del(fresh(), { headers: { Accept: 'image/png' } });
    case 408: return del(fresh(), { stall: true });
    case 409: return del(FROM_CONFIG);
    case 412: return del((await newPrinter(srv)).path, { headers: { 'If-Match': '"stale"' } });
    case 431: return del(fresh(), { headers: HUGE_HEADER });
    default: return undefined;
  }
}

/** A request of a printer operation the mock front lets through to Prism (a valid body), so `Prefer: code=` picks the answer. */
export function mockPrinterCall(operationId: string, status: number): Call {
  const call: Call =
    operationId === 'refreshPrinterStatus'
      ? { path: `${PRINTERS}/workbench/status`, method: 'POST' }
      : operationId === 'listPrinters'
      ? { path: PRINTERS }
      : operationId === 'putPrinter'
        ? { path: `${PRINTERS}/workbench`, method: 'PUT', body: PRINTER_BODY }
        : { path: `${PRINTERS}/workbench`, method: operationId === 'getPrinter' ? 'GET' : 'DELETE' };
  return (status === 200 || status === 204) && operationId !== 'putPrinter' ? call : { ...call, headers: { Prefer: `code=${status}` } };
}
