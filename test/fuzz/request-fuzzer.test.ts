/** The fuzzer's oracle can fail: responses the spec does not document are reported. */
import { describe, expect, it } from 'vitest';
import { undocumented } from './request-fuzzer.js';

const ops = [
  {
    operationId: 'getItemLabel',
    path: '/v1/labelmaker/item/{id}',
    method: 'GET',
    params: [],
    responses: {
      '200': { content: { 'image/png': {} } },
      '404': { content: { 'application/problem+json': {} } },
    },
  },
];
const req = (method: string, target: string) => ({ method, target, headers: [] as [string, string][], strategy: 'test', op: ops[0] });
const res = (status: number, type: string | undefined, body: string | Buffer, headers: Record<string, string> = {}) => ({
  status,
  headers: { ...(type ? { 'content-type': type } : {}), ...headers },
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  ms: 1,
});
const PNG = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0]);
const problem404 = JSON.stringify({ type: '/problems/not-found', title: 'Not found', status: 404 });

describe('fuzzer oracle', () => {
  it('accepts documented responses', () => {
    expect(undocumented(req('GET', '/v1/labelmaker/item/x'), res(200, 'image/png', PNG), ops)).toBeUndefined();
    expect(undocumented(req('GET', '/v1/labelmaker/item/x'), res(404, 'application/problem+json', problem404), ops)).toBeUndefined();
    expect(undocumented(req('HEAD', '/v1/labelmaker/item/x'), res(200, 'image/png', ''), ops)).toBeUndefined();
    expect(undocumented(req('POST', '/v1/labelmaker/item/x'), res(405, 'application/problem+json', JSON.stringify({ type: '/problems/method-not-allowed', title: 'x', status: 405 }), { allow: 'GET, HEAD' }), ops)).toBeUndefined();
  });

  it('reports an undocumented status, a wrong media type, a charset, a bad problem, a body on HEAD, a 405 without Allow', () => {
    const findings = [
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(418, 'application/problem+json', problem404), ops),
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(404, 'application/json', problem404), ops),
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(404, 'application/problem+json; charset=utf-8', problem404), ops),
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(404, 'application/problem+json', JSON.stringify({ status: 404 })), ops),
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(404, 'application/problem+json', JSON.stringify({ type: '/problems/x', title: 'x', status: 400 })), ops),
      undocumented(req('GET', '/v1/labelmaker/item/x'), res(200, 'image/png', 'not a png'), ops),
      undocumented(req('HEAD', '/v1/labelmaker/item/x'), res(200, 'image/png', PNG), ops),
      undocumented(req('POST', '/v1/labelmaker/item/x'), res(405, 'application/problem+json', JSON.stringify({ type: '/problems/m', title: 'x', status: 405 })), ops),
      undocumented({ ...req('GET', '/v1/nowhere'), op: undefined }, res(200, 'text/html', '<html>'), ops),
    ];
    for (const f of findings) expect(f).toEqual(expect.any(String));
  });
});
