/**
 * How each target produces each documented response. The server gets real
 * conditions; statuses that need a server in a special state (429, 500, 501, 503)
 * are covered by failures.test.ts and labels.test.ts instead.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { spec } from '../helpers/spec.js';
import { exampleCall, MOCK_PNG, PAGE_ORIGIN, preferring, type Call, type ContractTarget } from './suite.js';
import { INTEGRATION_OPS, integrationCallOn, integrationKey } from './integration-targets.js';
import { CALIBRATION_OPS, calibrationCallOn } from './calibration-targets.js';
import { RECORD_WRITE_OPS, recordWriteCallOn } from './record-write-targets.js';
import { PRINTER_OPS, printerCallOn } from './printer-targets.js';
import { AGENT_OPS, agentCallOn } from './agent-targets.js';
import { WEBHOOK_OPS, webhookCallOn } from './webhook-targets.js';
import { PRINT_RULE_OPS, printRuleCallOn } from './print-rule-targets.js';

export { MOCK_PNG };

const LABEL_PATHS: Record<string, { ok: string; missing: string; invalid: string }> = {
  getLocationLabel: { ok: '/v1/labelmaker/location/shelf-3', missing: '/v1/labelmaker/location/nowhere', invalid: '/v1/labelmaker/location/bad%20id' },
  getItemLabel: { ok: '/v1/labelmaker/item/tape-measure', missing: '/v1/labelmaker/item/no-such-item', invalid: '/v1/labelmaker/item/a%2Fb' },
  getAssetLabel: { ok: '/v1/labelmaker/assets/000-001', missing: '/v1/labelmaker/assets/000-999', invalid: '/v1/labelmaker/assets/12a' },
};
/** The public operations endpoints (no token, outside /v1). */
const OPERATIONS_PATHS: Record<string, string> = { getHealth: '/healthz', getLiveness: '/livez', getReadiness: '/readyz' };
const UNKNOWN_JOB = '/v1/labelmaker/print-jobs/00000000-0000-4000-8000-000000000000';
const SESSION = '/v1/labelmaker/session';
const RECORDS = { ok: '/v1/labelmaker/records?q=drill', invalid: '/v1/labelmaker/records?limit=0' };
const TEMPLATES = '/v1/labelmaker/templates';
const STOCKS = '/v1/labelmaker/stocks';
const FIELDS = '/v1/labelmaker/fields';
const TEMPLATE_OPS = new Set(['listLabelTemplates', 'getLabelTemplate', 'exportLabelTemplate', 'putLabelTemplate', 'deleteLabelTemplate']);
/** A valid template body, and the headers a JSON body travels with. */
export const TEMPLATE_BODY = JSON.stringify({ stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'path' }], codes: ['qr'] });
const JSON_BODY = { 'Content-Type': 'application/json' };

/** A sheet of labels for records that exist on the contract server. */
export const SHEET_PATH = '/v1/labelmaker/sheets';
export const SHEET_BODY = { sheet: 'avery-l7160', selection: { records: [{ kind: 'location', id: 'shelf-3' }, { kind: 'asset', id: '000-001' }] }, copies: 2 };
const SHEET_CALL = { path: SHEET_PATH, method: 'POST', body: SHEET_BODY };
/** A batch of labels for records that exist on the contract server. */
export const BATCH_PATH = '/v1/labelmaker/print-jobs';
export const BATCH_BODY = { selection: { records: [{ kind: 'item', id: 'tape-measure' }, { kind: 'asset', id: '000-001' }] } };
const BATCH_CALL = { path: BATCH_PATH, method: 'POST', body: BATCH_BODY };
/** An unsaved design drawn on a record that exists on the contract server. */
export const PREVIEW_PATH = '/v1/labelmaker/template-previews';
export const PREVIEW_BODY = { design: { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'Asset {assetId}' }], codes: ['qr'], codePosition: 'right' }, record: { kind: 'item', id: 'tape-measure' } };
const PREVIEW_CALL = { path: PREVIEW_PATH, method: 'POST', body: PREVIEW_BODY };
const UNKNOWN_BATCH = '/v1/labelmaker/print-jobs/batches/00000000-0000-4000-8000-000000000000';
/** listPrintJobs, and retryPrintJob of a job nobody has. */
export const JOBS = { ok: '/v1/labelmaker/print-jobs?limit=5', invalid: '/v1/labelmaker/print-jobs?state=lost' };
export const UNKNOWN_RETRY = `${UNKNOWN_JOB}/retry`;
const retryCall = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'POST', ...extra });
/** cancelPrintJob of a job nobody has. */
export const UNKNOWN_CANCEL = `${UNKNOWN_JOB}/cancel`;
/** Past the 600 KiB body limit: a 413. */
const HUGE_BODY = JSON.stringify({ ...SHEET_BODY, padding: 'x'.repeat(700 * 1024) });
/** Past the 16 KiB header limit: a 431. */
const HUGE_HEADER = { 'X-Padding': 'x'.repeat(17 * 1024) };
/** The contract server's request time-out (REQUEST_TIMEOUT_MS), short so the 408 comes quickly. */
export const CONTRACT_REQUEST_TIMEOUT_MS = 3000;

export const SERVER_UNTRIGGERABLE = new Set([429, 500, 501, 503]);
/**
 * prism proxy answers invalid, unauthenticated, oversized and slow requests itself, without
 * asking the server (bodies that break the schema or are not JSON included: its own 422).
 */
export const PROXY_UNTRIGGERABLE = new Set([...SERVER_UNTRIGGERABLE, 400, 401, 408, 413, 415, 431]);

/** A real server with printing into a spool folder (for print jobs and idempotency). */
export async function startContractServer(): Promise<TestServer> {
  // The field catalogue the spec's listFields example shows.
  const fieldsFile = join(tmpdir(), `lm-contract-fields-${process.pid}-${Date.now()}.json`);
  const example = spec.paths['/v1/labelmaker/fields'].get.responses['200'].content['application/json'].example;
  writeFileSync(fieldsFile, JSON.stringify({ fields: example.fields }));
  return startTestServer({
    FIELDS_FILE: fieldsFile,
    PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-contract-spool-${process.pid}-${Date.now()}`)).href,
    REQUEST_TIMEOUT_MS: String(CONTRACT_REQUEST_TIMEOUT_MS),
    CORS_ALLOW_ORIGINS: `${PAGE_ORIGIN}, http://localhost:5173`,
  });
}

export function serverTarget(srv: TestServer, url = srv.url): ContractTarget {
  const templateCall = (operationId: string, status: number) => templateCallOn(srv, operationId, status);
  const fetchAs = (path: string, headers: Record<string, string> = {}) =>
    fetch(srv.url + path, { headers: { Authorization: `Bearer ${srv.tokens.print}`, ...headers } });

  return {
    url,
    token: srv.tokens.print,
    pngBodies: true,
    cors: { origin: PAGE_ORIGIN, allowOrigin: PAGE_ORIGIN },
    async trigger(operationId, status): Promise<Call | undefined> {
      // 503 (an unreadable store, draining) is covered by test/integration/store-faults-*.test.ts and draining.test.ts.
      // A request that never finishes its headers, or whose headers are too large, is answered before it reaches an operation.
      if (status === 408) return { ...exampleCall(operationId), stall: true };
      if (status === 431) return { ...exampleCall(operationId), headers: HUGE_HEADER };
      if (INTEGRATION_OPS.has(operationId)) return integrationCallOn(srv, operationId, status);
      if (CALIBRATION_OPS.has(operationId)) return calibrationCallOn(srv, operationId, status);
      if (RECORD_WRITE_OPS.has(operationId)) return recordWriteCallOn(srv, operationId, status);
      if (PRINTER_OPS.has(operationId)) return printerCallOn(srv, operationId, status);
      if (AGENT_OPS.has(operationId)) return agentCallOn(srv, operationId, status);
      if (operationId === 'listFields') {
        switch (status) {
          case 200: return { path: FIELDS };
          case 304: return { path: FIELDS, headers: { 'If-None-Match': (await fetchAs(FIELDS)).headers.get('etag')! } };
          case 400: return { path: `${FIELDS}?x=%FF` };
          case 401: return { path: FIELDS, token: null };
          case 403: return { path: FIELDS, token: srv.tokens.printOnly };
          case 406: return { path: FIELDS, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (WEBHOOK_OPS.has(operationId)) return webhookCallOn(srv, operationId, status);
      if (PRINT_RULE_OPS.has(operationId)) return printRuleCallOn(srv, operationId, status);
      if (operationId === 'listStocks') {
        switch (status) {
          case 200: return { path: STOCKS };
          case 304: return { path: STOCKS, headers: { 'If-None-Match': (await fetchAs(STOCKS)).headers.get('etag')! } };
          case 400: return { path: `${STOCKS}?x=%FF` };
          case 401: return { path: STOCKS, token: null };
          case 403: return { path: STOCKS, token: srv.tokens.printOnly };
          case 406: return { path: STOCKS, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'createPrintBatch') {
        const key = { 'Idempotency-Key': `contract-${randomUUID()}` };
        switch (status) {
          case 200: {
            await fetch(srv.url + BATCH_PATH, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'application/json', ...key }, body: JSON.stringify(BATCH_BODY) });
            return { ...BATCH_CALL, headers: key };
          }
          case 201: return { ...BATCH_CALL, headers: key };
          case 400: return { ...BATCH_CALL, body: { ...BATCH_BODY, copies: 0 } };
          case 401: return { ...BATCH_CALL, token: null };
          case 403: return { ...BATCH_CALL, token: srv.tokens.read };
          case 406: return { ...BATCH_CALL, headers: { Accept: 'image/png' } };
          case 413: return { path: BATCH_PATH, method: 'POST', rawBody: { type: 'application/json', data: HUGE_BODY } };
          case 415: return { path: BATCH_PATH, method: 'POST', rawBody: { type: 'text/plain', data: JSON.stringify(BATCH_BODY) } };
          case 422: {
            // A key used for another request (the records-not-found example is covered by createSheet's 422).
            await fetch(srv.url + BATCH_PATH, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'application/json', ...key }, body: JSON.stringify({ ...BATCH_BODY, copies: 2 }) });
            return { ...BATCH_CALL, headers: key };
          }
          default: return undefined;
        }
      }
      if (operationId === 'getPrintBatch') {
        switch (status) {
          case 200: {
            const res = await fetch(srv.url + BATCH_PATH, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'application/json' }, body: JSON.stringify(BATCH_BODY) });
            return { path: res.headers.get('location')! };
          }
          case 400: return { path: '/v1/labelmaker/print-jobs/batches/not-a-uuid' };
          case 401: return { path: UNKNOWN_BATCH, token: null };
          case 403: return { path: UNKNOWN_BATCH, token: srv.tokens.read };
          case 404: return { path: UNKNOWN_BATCH };
          case 406: return { path: UNKNOWN_BATCH, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'listPrintJobs') {
        switch (status) {
          case 200: {
            await fetchAs(`${LABEL_PATHS.getItemLabel!.ok}?print=true`); // at least one job to list
            return { path: JOBS.ok };
          }
          case 400: return { path: JOBS.invalid };
          case 401: return { path: JOBS.ok, token: null };
          case 403: return { path: JOBS.ok, token: srv.tokens.read };
          case 406: return { path: JOBS.ok, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'retryPrintJob') {
        switch (status) {
          case 200: return retryCall(`/v1/labelmaker/print-jobs/${await requeuedJob(srv)}/retry`);
          case 202: return retryCall(`/v1/labelmaker/print-jobs/${await failedJob(srv)}/retry`);
          case 400: return retryCall('/v1/labelmaker/print-jobs/not-a-uuid/retry');
          case 401: return retryCall(UNKNOWN_RETRY, { token: null });
          case 403: return retryCall(UNKNOWN_RETRY, { token: srv.tokens.read });
          case 404: return retryCall(`/v1/labelmaker/print-jobs/${await failedJob(srv)}/retry`, { token: srv.tokens.printOnly }); // another token's job
          case 406: return retryCall(UNKNOWN_RETRY, { headers: { Accept: 'image/png' } });
          case 409: {
            const res = await fetchAs(`${LABEL_PATHS.getItemLabel!.ok}?print=true`); // queued or printed, never failed
            return retryCall(`${res.headers.get('print-job')!}/retry`);
          }
          default: return undefined;
        }
      }
      if (operationId === 'movePrintJob') {
        const move = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'POST', body: { printer: 'default' }, ...extra });
        const waiting = async () => `/v1/labelmaker/print-jobs/${await waitingJob(srv)}/move`;
        switch (status) {
          case 200: return move(await waiting());
          case 400: return move('/v1/labelmaker/print-jobs/not-a-uuid/move');
          case 401: return move(`${UNKNOWN_JOB}/move`, { token: null });
          case 403: return move(`${UNKNOWN_JOB}/move`, { token: srv.tokens.read });
          case 404: return move(await waiting(), { token: srv.tokens.printOnly }); // another token's job
          case 406: return move(`${UNKNOWN_JOB}/move`, { headers: { Accept: 'image/png' } });
          case 409: return move(`/v1/labelmaker/print-jobs/${await failedJob(srv)}/move`);
          case 413: return { path: `${UNKNOWN_JOB}/move`, method: 'POST', rawBody: { type: 'application/json', data: JSON.stringify({ printer: 'default', padding: 'x'.repeat(700 * 1024) }) } };
          case 415: return { path: `${UNKNOWN_JOB}/move`, method: 'POST', rawBody: { type: 'text/plain', data: '{"printer":"default"}' } };
          case 422: return move(await waiting(), { body: { printer: 'no-such-printer' } });
          default: return undefined;
        }
      }
      if (operationId === 'cancelPrintJob') {
        switch (status) {
          case 200: return retryCall(`/v1/labelmaker/print-jobs/${await waitingJob(srv)}/cancel`);
          case 400: return retryCall('/v1/labelmaker/print-jobs/not-a-uuid/cancel');
          case 401: return retryCall(UNKNOWN_CANCEL, { token: null });
          case 403: return retryCall(UNKNOWN_CANCEL, { token: srv.tokens.read });
          case 404: return retryCall(`/v1/labelmaker/print-jobs/${await waitingJob(srv)}/cancel`, { token: srv.tokens.printOnly }); // another token's job
          case 406: return retryCall(UNKNOWN_CANCEL, { headers: { Accept: 'image/png' } });
          case 409: return retryCall(`/v1/labelmaker/print-jobs/${await failedJob(srv)}/cancel`);
          default: return undefined;
        }
      }
      if (operationId === 'previewLabelTemplate') {
        switch (status) {
          case 200: return PREVIEW_CALL;
          // A member the schema does not have, inside the design.
          case 400: return { ...PREVIEW_CALL, body: { ...PREVIEW_BODY, design: { stock: 'brother-ql-62x29', colour: 'red' } } };
          case 401: return { ...PREVIEW_CALL, token: null };
          case 403: return { ...PREVIEW_CALL, token: srv.tokens.printOnly };
          case 404: return { ...PREVIEW_CALL, body: { ...PREVIEW_BODY, record: { kind: 'item', id: 'no-such-item' } } };
          case 406: return { ...PREVIEW_CALL, headers: { Accept: 'application/json' } };
          case 413: return { path: PREVIEW_PATH, method: 'POST', rawBody: { type: 'application/json', data: JSON.stringify({ ...PREVIEW_BODY, padding: 'x'.repeat(700 * 1024) }) } };
          case 415: return { path: PREVIEW_PATH, method: 'POST', rawBody: { type: 'text/plain', data: JSON.stringify(PREVIEW_BODY) } };
          case 422: return { ...PREVIEW_CALL, body: { ...PREVIEW_BODY, design: { stock: 'avery-5160' } } };
          default: return undefined;
        }
      }
      if (operationId === 'createSheet') {
        switch (status) {
          case 200: return SHEET_CALL;
          case 400: return { ...SHEET_CALL, body: { ...SHEET_BODY, startAt: 22 } };
          case 401: return { ...SHEET_CALL, token: null };
          case 403: return { ...SHEET_CALL, token: srv.tokens.printOnly };
          case 406: return { ...SHEET_CALL, headers: { Accept: 'image/png' } };
          case 413: return { path: SHEET_PATH, method: 'POST', rawBody: { type: 'application/json', data: HUGE_BODY } };
          case 415: return { path: SHEET_PATH, method: 'POST', rawBody: { type: 'text/csv', data: 'kind,id\nlocation,shelf-3\n' } };
          case 422: return { ...SHEET_CALL, body: { ...SHEET_BODY, selection: { records: [{ kind: 'item', id: 'no-such-item' }, { kind: 'asset', id: '000-999' }] } } };
          default: return undefined;
        }
      }
      if (TEMPLATE_OPS.has(operationId)) return templateCall(operationId, status);
      const operations = OPERATIONS_PATHS[operationId];
      if (operations) {
        switch (status) {
          case 200: return { path: operations, token: null };
          case 400: return { path: `${operations}?x=%FF`, token: null };
          case 406: return { path: operations, token: null, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'getSession') {
        switch (status) {
          case 200: return { path: SESSION };
          case 400: return { path: `${SESSION}?x=%FF` };
          case 401: return { path: SESSION, token: null };
          case 403: return { path: SESSION, token: await integrationKey(srv) }; // an integration key opens only its own operations
          case 406: return { path: SESSION, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'listRecords') {
        switch (status) {
          case 200: return { path: RECORDS.ok };
          case 400: return { path: RECORDS.invalid };
          case 401: return { path: RECORDS.ok, token: null };
          case 403: return { path: RECORDS.ok, token: srv.tokens.printOnly };
          case 406: return { path: RECORDS.ok, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      if (operationId === 'getPrintJob') {
        switch (status) {
          case 200: {
            const res = await fetchAs(`${LABEL_PATHS.getItemLabel!.ok}?print=true`);
            return { path: res.headers.get('print-job')! };
          }
          case 400: return { path: '/v1/labelmaker/print-jobs/not-a-uuid' };
          case 401: return { path: UNKNOWN_JOB, token: null };
          case 403: return { path: UNKNOWN_JOB, token: srv.tokens.read };
          case 404: return { path: UNKNOWN_JOB };
          case 406: return { path: UNKNOWN_JOB, headers: { Accept: 'image/png' } };
          default: return undefined;
        }
      }
      const p = LABEL_PATHS[operationId]!;
      switch (status) {
        case 200: return { path: p.ok };
        case 304: {
          const etag = (await fetchAs(p.ok)).headers.get('etag')!;
          return { path: p.ok, headers: { 'If-None-Match': etag } };
        }
        case 400: return { path: p.invalid };
        case 401: return { path: p.ok, token: null };
        case 403: return { path: `${p.ok}?print=true`, token: srv.tokens.read };
        case 404: return { path: p.missing };
        case 406: return { path: p.ok, headers: { Accept: 'application/json' } };
        case 422: {
          const key = `contract-${randomUUID()}`; // fresh per call: a reused key would name an older job
          const other = operationId === 'getLocationLabel' ? LABEL_PATHS.getItemLabel!.ok : LABEL_PATHS.getLocationLabel!.ok;
          await fetchAs(`${other}?print=true`, { 'Idempotency-Key': key });
          return { path: `${p.ok}?print=true`, headers: { 'Idempotency-Key': key } };
        }
        default: return undefined;
      }
    },
  };
}

/** The id of a job of the server's print token whose token id is the 8 characters after `lm_`. */
const tokenIdOf = (token: string) => token.slice(3, 11);
/** A job lease held by the contract suite, not the server's worker. */
const HOLDER = 'contract-suite';

/**
 * A failed job of the print token, made through the store: the contract server's
 * spool folder never fails. The worker is not woken by a job stored this way, so
 * the suite claims it first; if the worker was quicker, it tries with a new job.
 */
async function failedJob(srv: TestServer): Promise<string> {
  for (let tries = 0; tries < 5; tries++) {
    const id = randomUUID();
    await srv.store.printJobs.submit(
      { id, printer: 'default', template: 'brother-ql-62x29', title: 'item label: contract', fields: { kind: 'item', id: 'tape-measure' }, tokenId: tokenIdOf(srv.tokens.print), idempotencyKey: null, maxAttempts: 1, png: MOCK_PNG },
      '2000-01-01T00:00:00.000Z',
    );
    const claimed = await srv.store.printJobs.claim(HOLDER, 60_000);
    if (claimed?.id === id && (await srv.store.printJobs.markFailed(id, HOLDER, 'connect ECONNREFUSED 127.0.0.1:9100'))) return id;
    if (claimed) await srv.store.printJobs.markRetry(claimed.id, HOLDER, 'handed back by the contract suite', new Date().toISOString());
  }
  throw new Error('could not make a failed print job');
}

/** A job of the print token waiting to retry in an hour (held back by the suite): one that can be cancelled. */
async function waitingJob(srv: TestServer): Promise<string> {
  for (let tries = 0; tries < 5; tries++) {
    const id = randomUUID();
    await srv.store.printJobs.submit(
      { id, printer: 'default', template: 'brother-ql-62x29', title: 'item label: contract', fields: { kind: 'item', id: 'tape-measure' }, tokenId: tokenIdOf(srv.tokens.print), idempotencyKey: null, maxAttempts: 5, png: MOCK_PNG },
      '2000-01-01T00:00:00.000Z',
    );
    const claimed = await srv.store.printJobs.claim(HOLDER, 60_000);
    if (claimed?.id === id && (await srv.store.printJobs.markRetry(id, HOLDER, 'connect ECONNREFUSED 127.0.0.1:9100', new Date(Date.now() + 3_600_000).toISOString()))) return id;
    if (claimed) await srv.store.printJobs.markRetry(claimed.id, HOLDER, 'handed back by the contract suite', new Date().toISOString());
  }
  throw new Error('could not make a waiting print job');
}

/** A failed job put back in the queue and held (printing) by the suite: a repeated retry finds it so. */
async function requeuedJob(srv: TestServer): Promise<string> {
  for (let tries = 0; tries < 5; tries++) {
    const id = await failedJob(srv);
    await srv.store.printJobs.requeueFailed(id, null);
    const claimed = await srv.store.printJobs.claim(HOLDER, 60_000);
    if (claimed?.id === id) return id;
    if (claimed) await srv.store.printJobs.markRetry(claimed.id, HOLDER, 'handed back by the contract suite', new Date().toISOString());
  }
  throw new Error('could not hold a re-queued print job');
}

/** A saved template on the server, made for one call (names are unique, so calls never meet). */
async function newTemplate(srv: TestServer): Promise<{ path: string; etag: string }> {
  const path = `${TEMPLATES}/contract-${randomUUID().slice(0, 8)}`;
  const res = await fetch(srv.url + path, { method: 'PUT', headers: { Authorization: `Bearer ${srv.tokens.editor}`, ...JSON_BODY, 'If-None-Match': '*' }, body: TEMPLATE_BODY });
  if (res.status !== 201) throw new Error(`could not create ${path}: ${res.status} ${await res.text()}`);
  return { path, etag: res.headers.get('etag')! };
}

/** Real conditions for every documented answer of the template operations. */
async function templateCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const editor = srv.tokens.editor;
  const fresh = () => `${TEMPLATES}/contract-${randomUUID().slice(0, 8)}`;
  if (operationId === 'listLabelTemplates') {
    switch (status) {
      case 200: return { path: TEMPLATES };
      case 400: return { path: `${TEMPLATES}?x=%FF` };
      case 401: return { path: TEMPLATES, token: null };
      case 403: return { path: TEMPLATES, token: srv.tokens.printOnly };
      case 406: return { path: TEMPLATES, headers: { Accept: 'image/png' } };
      default: return undefined;
    }
  }
  if (operationId === 'getLabelTemplate') {
    switch (status) {
      case 200: return { path: (await newTemplate(srv)).path };
      case 304: {
        const t = await newTemplate(srv);
        return { path: t.path, headers: { 'If-None-Match': t.etag } };
      }
      case 400: return { path: `${TEMPLATES}/Bad%20Name` };
      case 401: return { path: fresh(), token: null };
      case 403: return { path: fresh(), token: srv.tokens.printOnly };
      case 404: return { path: fresh() };
      case 406: return { path: fresh(), headers: { Accept: 'image/png' } };
      default: return undefined;
    }
  }
  if (operationId === 'exportLabelTemplate') {
    switch (status) {
      case 200: return { path: `${(await newTemplate(srv)).path}/file` };
      case 400: return { path: `${TEMPLATES}/Bad%20Name/file` };
      case 401: return { path: `${fresh()}/file`, token: null };
      case 403: return { path: `${fresh()}/file`, token: srv.tokens.printOnly };
      case 404: return { path: `${fresh()}/file` };
      case 406: return { path: `${fresh()}/file`, headers: { Accept: 'image/png' } };
      default: return undefined;
    }
  }
  const put = (path: string, headers: Record<string, string>, body = TEMPLATE_BODY, token: string | null = editor): Call => ({ path, method: 'PUT', body, headers: { ...JSON_BODY, ...headers }, token });
  if (operationId === 'putLabelTemplate') {
    switch (status) {
      case 200: {
        const t = await newTemplate(srv);
        return put(t.path, { 'If-Match': t.etag });
      }
      case 201: return put(fresh(), { 'If-None-Match': '*' });
      case 400: return put(fresh(), { 'If-None-Match': '*' }, JSON.stringify({ stock: 'brother-ql-62x29', colour: 'red' }));
      case 401: return put(fresh(), { 'If-None-Match': '*' }, TEMPLATE_BODY, null);
      case 403: return put(fresh(), { 'If-None-Match': '*' }, TEMPLATE_BODY, srv.tokens.read);
      case 406: return put(fresh(), { 'If-None-Match': '*', Accept: 'image/png' });
      case 409: return put(`${TEMPLATES}/brother-ql-62x29`, { 'If-None-Match': '*' });
      case 412: return put((await newTemplate(srv)).path, { 'If-Match': '"stale"' });
      case 413: return put(fresh(), { 'If-None-Match': '*' }, JSON.stringify({ stock: 'brother-ql-62x29', footer: 'x'.repeat(700 * 1024) }));
      case 415: return { ...put(fresh(), { 'If-None-Match': '*' }, 'stock=brother-ql-62x29'), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'If-None-Match': '*' } };
      case 422: return put(fresh(), { 'If-None-Match': '*' }, JSON.stringify({ stock: 'avery-5160' }));
      case 428: return put(fresh(), {});
      default: return undefined;
    }
  }
  const del = (path: string, headers: Record<string, string>, token: string | null = editor): Call => ({ path, method: 'DELETE', headers, token });
  switch (status) {
    case 204: {
      const t = await newTemplate(srv);
      return del(t.path, { 'If-Match': t.etag });
    }
    case 400: return del(`${TEMPLATES}/Bad%20Name`, { 'If-Match': '"x"' });
    case 401: return del(fresh(), { 'If-Match': '"x"' }, null);
    case 403: return del(fresh(), { 'If-Match': '"x"' }, srv.tokens.read);
    case 404: return del(fresh(), { 'If-Match': '"x"' });
    case 406: return del(fresh(), { 'If-Match': '"x"', Accept: 'image/png' });
    case 412: return del((await newTemplate(srv)).path, { 'If-Match': '"stale"' });
    case 428: return del((await newTemplate(srv)).path, {});
    default: return undefined;
  }
}

/** The mock answers any documented status of the spec's own example request (suite.ts exampleCall) on request (Prefer: code=...). */
export function mockTarget(url: string): ContractTarget {
  return {
    url,
    token: 'any-token-will-do',
    pngBodies: true,
    // The mock serves any local page.
    cors: { origin: PAGE_ORIGIN, allowOrigin: '*' },
    trigger: (operationId, status) => preferring(exampleCall(operationId), status),
  };
}
