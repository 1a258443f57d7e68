/**
 * The shared contract suite against the Prism mock (through the front that turns
 * base64 examples into real PNG bytes), and `prism mock --errors`, which answers
 * 500 for any example that violates its own schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { DOCUMENTED, contractSuite, type Call } from './suite.js';
import { BATCH_BODY, BATCH_PATH, MOCK_PNG, mockTarget, mockTemplateCall, PREVIEW_BODY, PREVIEW_PATH, SHEET_BODY, SHEET_PATH } from './targets.js';
import { INTEGRATION_OPS, mockIntegrationCall } from './integration-targets.js';
import { CALIBRATION_OPS, mockCalibrationCall } from './calibration-targets.js';
import { spec, type Json } from '../helpers/spec.js';

let mock: RunningMock;
let strict: RunningMock;
beforeAll(async () => {
  [mock, strict] = await Promise.all([startMock(), startMock({ errors: true })]);
});
afterAll(async () => {
  await Promise.all([mock?.close(), strict?.close()]);
});

contractSuite('contract: Prism mock', () => mockTarget(mock.url), () => true);

describe('prism mock --errors: every example in the spec is valid', () => {
  const named = Object.values<Json>(spec.paths).flatMap((item) =>
    Object.values<Json>(item).flatMap((op) =>
      Object.entries<Json>(op.responses).flatMap(([status, r]) => {
        const res = r.$ref ? spec.components.responses[r.$ref.split('/').pop()] : r;
        return Object.values<Json>(res.content ?? {}).flatMap((m) => Object.keys(m.examples ?? {}).map((example) => ({ op: op.operationId as string, status, example })));
      }),
    ),
  );

  it.each(DOCUMENTED)('$operationId $status', async ({ operationId, status }) => {
    const call = callFor(operationId);
    const res = await fetch(strict.url + call.path, {
      method: call.method ?? 'GET',
      body: call.body as string | Uint8Array<ArrayBuffer> | undefined,
      headers: { Authorization: 'Bearer x', Accept: 'image/png, application/pdf, application/json, application/problem+json', ...call.headers, Prefer: `code=${status}` },
    });
    expect(res.status, await res.clone().text()).toBe(status);
  });

  it.each(named)('$op $status example "$example"', async ({ op, status, example }) => {
    const call = callFor(op);
    const res = await fetch(strict.url + call.path, {
      method: call.method ?? 'GET',
      body: call.body as string | Uint8Array<ArrayBuffer> | undefined,
      headers: { Authorization: 'Bearer x', Accept: 'image/png, application/pdf, application/json, application/problem+json', ...call.headers, Prefer: `code=${status}, example=${example}` },
    });
    expect(res.status, await res.clone().text()).toBe(Number(status));
  });

  // Request body examples: each is a valid request (the spec router and Prism both check it).
  const bodies = Object.values<Json>(spec.paths).flatMap((item) =>
    Object.values<Json>(item).flatMap((op) =>
      Object.entries<Json>(op.requestBody?.content?.['application/json']?.examples ?? {}).map(([example, e]) => ({ op: op.operationId as string, example, body: e.value })),
    ),
  );
  it.each(bodies)('$op request example "$example" is a valid request', async ({ op, body }) => {
    // The operation's first documented success (Grocy's webhook answers 202).
    const ok = Number(Object.keys(Object.values<Json>(spec.paths).flatMap((item) => Object.values<Json>(item)).find((o) => o.operationId === op)!.responses).find((s) => s.startsWith('2')));
    const res = await send(strict.url, op, `code=${ok}`, body);
    expect(res.status, await res.clone().text()).toBe(ok);
  });
});

/** A valid request for each operation (a body where it takes one, or `body` instead of the example's). */
function send(base: string, operationId: string, prefer: string, body?: unknown): Promise<Response> {
  const call = callFor(operationId);
  return fetch(base + call.path, {
    method: call.method ?? 'GET',
    body: body === undefined ? (call.body as string | Uint8Array<ArrayBuffer> | undefined) : JSON.stringify(body),
    headers: { Authorization: 'Bearer x', Accept: 'image/png, application/pdf, application/json, application/problem+json', ...call.headers, Prefer: prefer },
  });
}

function callFor(operationId: string): Call {
  if (INTEGRATION_OPS.has(operationId)) {
    // As a client sends it: JSON as text, an image as bytes, each with its Content-Type.
    const call = mockIntegrationCall(operationId, 0, MOCK_PNG);
    if (call.rawBody) return { ...call, body: new Uint8Array(call.rawBody.data as Buffer), headers: { 'Content-Type': call.rawBody.type } };
    return { ...call, body: JSON.stringify(call.body), headers: { 'Content-Type': 'application/json' } };
  }
  if (CALIBRATION_OPS.has(operationId)) {
    const call = mockCalibrationCall(operationId, 200);
    return call.body === undefined ? call : { ...call, body: JSON.stringify(call.body), headers: { 'Content-Type': 'application/json' } };
  }
  if (operationId === 'previewLabelTemplate') return { path: PREVIEW_PATH, method: 'POST', body: JSON.stringify(PREVIEW_BODY), headers: { 'Content-Type': 'application/json' } };
  if (/LabelTemplate/.test(operationId)) return mockTemplateCall(operationId);
  if (operationId === 'createSheet') return { path: SHEET_PATH, method: 'POST', body: JSON.stringify(SHEET_BODY), headers: { 'Content-Type': 'application/json' } };
  if (operationId === 'createPrintBatch') return { path: BATCH_PATH, method: 'POST', body: JSON.stringify(BATCH_BODY), headers: { 'Content-Type': 'application/json' } };
  if (operationId === 'retryPrintJob') return { path: '/v1/labelmaker/print-jobs/7a9d2e4f-1b3c-4d5e-8f6a-0b1c2d3e4f5a/retry', method: 'POST' };
  if (operationId === 'cancelPrintJob') return { path: '/v1/labelmaker/print-jobs/9e4b7c21-5a3d-4f8e-b6c1-2d7a0e9f4b13/cancel', method: 'POST' };
  return { path: pathFor(operationId) };
}

function pathFor(operationId: string): string {
  return {
    getLocationLabel: '/v1/labelmaker/location/garage',
    getItemLabel: '/v1/labelmaker/item/drill',
    getAssetLabel: '/v1/labelmaker/assets/000-001',
    getPrintJob: '/v1/labelmaker/print-jobs/3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30',
    getPrintBatch: '/v1/labelmaker/print-jobs/batches/6a1f0c3e-2b7d-4e5f-9a8b-1c2d3e4f5a6b',
    listPrintJobs: '/v1/labelmaker/print-jobs?state=failed',
    listRecords: '/v1/labelmaker/records?q=drill',
    getSession: '/v1/labelmaker/session',
    listStocks: '/v1/labelmaker/stocks',
    getHealth: '/healthz',
    getLiveness: '/livez',
    getReadiness: '/readyz',
  }[operationId]!;
}

describe("the mock checks Grocy's code parameter as the server does (one spec router)", () => {
  it('?code=code128 and ?code=datamatrix are accepted (202); ?code=qr is a 400 naming code', async () => {
    const call = mockIntegrationCall('printGrocyLabel', 202, MOCK_PNG);
    const post = (query: string) =>
      fetch(`${mock.url}${call.path}${query}`, { method: 'POST', body: JSON.stringify(call.body), headers: { 'Content-Type': 'application/json', ...call.headers } });
    expect((await post('?code=code128')).status).toBe(202);
    expect((await post('?code=datamatrix')).status).toBe(202);
    const bad = await post('?code=qr');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/\bcode\b/);
  });
});
