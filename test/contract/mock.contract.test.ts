/**
 * The shared contract suite against the Prism mock (through the front that turns
 * base64 examples into real PNG bytes), and `prism mock --errors`, which answers
 * 500 for any example that violates its own schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { DOCUMENTED, contractSuite, exampleCall, OPERATIONS, type Call } from './suite.js';
import { mockTarget } from './targets.js';
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
  const named = OPERATIONS.flatMap(({ op }) =>
    Object.entries<Json>(op.responses).flatMap(([status, r]) => {
      const res = r.$ref ? spec.components.responses[r.$ref.split('/').pop()] : r;
      return Object.values<Json>(res.content ?? {}).flatMap((m) => Object.keys(m.examples ?? {}).map((example) => ({ op: op.operationId as string, status, example })));
    }),
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
  const bodies = OPERATIONS.flatMap(({ op }) =>
    Object.entries<Json>(op.requestBody?.content?.['application/json']?.examples ?? {}).map(([example, e]) => ({ op: op.operationId as string, example, body: e.value })),
  );
  it.each(bodies)('$op request example "$example" is a valid request', async ({ op, body }) => {
    // The operation's first documented success (Grocy's webhook answers 202).
    const ok = Number(Object.keys(OPERATIONS.find((o) => o.operationId === op)!.op.responses).find((s) => s.startsWith('2')));
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

/** The operation's request from the spec (suite.ts exampleCall), as a client sends it: JSON as text, an image as bytes, each with its Content-Type. */
function callFor(operationId: string): Call {
  const call = exampleCall(operationId);
  if (call.rawBody) return { ...call, body: new Uint8Array(call.rawBody.data as Buffer), headers: { ...call.headers, 'Content-Type': call.rawBody.type } };
  if (call.body === undefined) return call;
  return { ...call, body: JSON.stringify(call.body), headers: { ...call.headers, 'Content-Type': 'application/json' } };
}

describe("the mock checks Grocy's code parameter as the server does (one spec router)", () => {
  it('?code=code128 and ?code=datamatrix are accepted (202); ?code=qr is a 400 naming code', async () => {
    const call = exampleCall('printGrocyLabel');
    const post = (query: string) =>
      fetch(`${mock.url}${call.path}${query}`, { method: 'POST', body: JSON.stringify(call.body), headers: { 'Content-Type': 'application/json', ...call.headers } });
    expect((await post('?code=code128')).status).toBe(202);
    expect((await post('?code=datamatrix')).status).toBe(202);
    const bad = await post('?code=qr');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/\bcode\b/);
  });
});
