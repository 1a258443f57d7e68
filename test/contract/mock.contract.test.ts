/**
 * The shared contract suite against the Prism mock (through the front that turns
 * base64 examples into real PNG bytes), and `prism mock --errors`, which answers
 * 500 for any example that violates its own schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { DOCUMENTED, contractSuite, type Call } from './suite.js';
import { mockTarget, mockTemplateCall } from './targets.js';
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
      body: call.body,
      headers: { Authorization: 'Bearer x', Accept: 'image/png, application/json, application/problem+json', ...call.headers, Prefer: `code=${status}` },
    });
    expect(res.status, await res.clone().text()).toBe(status);
  });

  it.each(named)('$op $status example "$example"', async ({ op, status, example }) => {
    const call = callFor(op);
    const res = await fetch(strict.url + call.path, {
      method: call.method ?? 'GET',
      body: call.body,
      headers: { Authorization: 'Bearer x', Accept: 'image/png, application/json, application/problem+json', ...call.headers, Prefer: `code=${status}, example=${example}` },
    });
    expect(res.status, await res.clone().text()).toBe(Number(status));
  });
});

function callFor(operationId: string): Call {
  if (/LabelTemplate/.test(operationId)) return mockTemplateCall(operationId);
  if (operationId === 'getPrintJob') return { path: '/v1/labelmaker/print-jobs/3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30' };
  return { path: pathFor(operationId) };
}

function pathFor(operationId: string): string {
  return {
    getLocationLabel: '/v1/labelmaker/location/garage',
    getItemLabel: '/v1/labelmaker/item/drill',
    getAssetLabel: '/v1/labelmaker/assets/000-001',
    listRecords: '/v1/labelmaker/records?q=drill',
    getHealth: '/healthz',
    getReadiness: '/readyz',
  }[operationId]!;
}
