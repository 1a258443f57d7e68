/**
 * The one mapper at the edge (router.ts `fail`), seen from the client: each domain
 * error that reaches it answers the problem it carries, with its detail and headers,
 * and the operator-facing faults (an unavailable store, dead render threads) are
 * logged (and the store's counted) as before; anything else is a logged 500.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createApp } from '../../src/api/app.js';
import { HttpProblem } from '../../src/api/problems.js';
import { createApiRouter } from '../../src/api/router.js';
import type { Handlers } from '../../src/api/operations.js';
import { SPEC_PATH } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { ImageError, LabelFitError, LogoBusyError, RenderUnavailableError, SheetTimeoutError } from '../../src/labels/index.js';
import { registry } from '../../src/metrics.js';
import { IdempotencyMismatchError, JobNotFailedError, PrintingNotConfiguredError } from '../../src/printing/index.js';
import { openStore } from '../../src/records/index.js';
import type { Store } from '../../src/records/types.js';
import { problemErrors } from '../helpers/spec.js';

let store: Store;
let url: string;
let close: () => Promise<void>;
/** What the next request's handler throws. */
let thrown: unknown;
const logged: { level: number; msg: string; err?: { message: string }; reqId?: string }[] = [];

beforeAll(async () => {
  store = await openStore('sqlite::memory:');
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  // The real spec router and app; the one operation here (the public getLiveness) throws `thrown`.
  const router = await createApiRouter({
    definition: parseYaml(readFileSync(SPEC_PATH, 'utf8')) as Document,
    tokens: store.tokens,
    // Only the operation this test calls: the rest are never reached.
    handlers: {
      getLiveness: async () => {
        throw thrown;
      },
    } as Partial<Handlers> as Handlers,
    logger,
  });
  const app = createApp({ config: loadConfig({}), store, logger, specYaml: '', specJson: '{}', router, draining: () => false });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  await close?.();
  await store?.close();
});

async function storeErrorsCounted(): Promise<number> {
  const metric = await registry.getSingleMetric('labelmaker_store_errors_total')!.get();
  return metric.values.find((v) => v.labels.source === 'request')?.value ?? 0;
}

/** The answer to a request whose handler throws `err`, the log lines it wrote and the store errors it counted. */
async function answerTo(err: unknown) {
  thrown = err;
  logged.length = 0;
  const countedBefore = await storeErrorsCounted();
  const res = await fetch(`${url}/livez`);
  const body = (await res.json()) as { type: string; status: number; detail: string; requestId: string; [member: string]: unknown };
  expect(problemErrors(body)).toBeUndefined();
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(body.status).toBe(res.status);
  const errors = logged.filter((l) => l.level >= 50);
  return { status: res.status, type: body.type, detail: body.detail, body, retryAfter: res.headers.get('retry-after'), errors, counted: (await storeErrorsCounted()) - countedBefore };
}

const sqliteReadOnly = () => Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });

describe('errors that carry their problem, written by the one mapper', () => {
  it.each([
    ['LabelFitError', () => new LabelFitError('the DataMatrix does not fit brother-ql-17x54'), 400, 'invalid-request', 'the DataMatrix does not fit brother-ql-17x54; choose a larger template.', null],
    ['SheetTimeoutError', () => new SheetTimeoutError('the sheet took longer than its time limit after 40 labels'), 503, 'unavailable', 'The labels took too long to make; ask for fewer per request. Nothing was printed.', '5'],
    ['ImageError not-png', () => new ImageError('not-png', 'not a PNG (bad signature)'), 400, 'invalid-request', 'The body is not a PNG image: not a PNG (bad signature).', null],
    ['ImageError too-large', () => new ImageError('too-large', 'the image is 12000 x 12000 pixels; at most 20 megapixels are accepted'), 413, 'payload-too-large', 'The image is too large to print: the image is 12000 x 12000 pixels; at most 20 megapixels are accepted.', null],
    ['ImageError damaged', () => new ImageError('damaged', "the PNG's image data is truncated (3 of 9 rows)"), 422, 'invalid-image', "The PNG cannot be printed: the PNG's image data is truncated (3 of 9 rows).", null],
    ['LogoBusyError', () => new LogoBusyError('Too many logos are being drawn at once; retry shortly.'), 503, 'unavailable', 'Too many logos are being drawn at once; retry shortly.', '5'],
    ['IdempotencyMismatchError', () => new IdempotencyMismatchError("Idempotency-Key 'k' was already used for another label (job j); use a new key."), 422, 'idempotency-key-reused', "Idempotency-Key 'k' was already used for another label (job j); use a new key.", null],
    ['JobNotFailedError', () => new JobNotFailedError('Print job j is printed, not failed: only a failed job can be retried.'), 409, 'job-not-failed', 'Print job j is printed, not failed: only a failed job can be retried.', null],
    ['PrintingNotConfiguredError', () => new PrintingNotConfiguredError(), 501, 'printing-not-configured', 'This server has no printer configured.', null],
    ['PrintingNotConfiguredError with what to do', () => new PrintingNotConfiguredError('fetch the label without print=true.'), 501, 'printing-not-configured', 'This server has no printer configured; fetch the label without print=true.', null],
  ] as const)('%s', async (_name, make, status, type, detail, retryAfter) => {
    const answer = await answerTo(make());
    expect(answer).toMatchObject({ status, type: `/problems/${type}`, detail, retryAfter, counted: 0 });
    expect(answer.errors).toEqual([]); // a client's problem, not the operator's
  });

  it('an HttpProblem with its headers and members', async () => {
    const answer = await answerTo(new HttpProblem('records-not-found', 'No item has the id x.', { 'Retry-After': '9' }, { missing: [{ kind: 'item', id: 'x' }] }));
    expect(answer).toMatchObject({ status: 422, type: '/problems/records-not-found', detail: 'No item has the id x.', retryAfter: '9' });
    expect(answer.body.missing).toEqual([{ kind: 'item', id: 'x' }]);
  });

  it('render threads unavailable: a 503 with their Retry-After, logged', async () => {
    const answer = await answerTo(new RenderUnavailableError(7));
    expect(answer).toMatchObject({ status: 503, type: '/problems/unavailable', retryAfter: '7', counted: 0 });
    expect(answer.detail).toBe('The label engine is restarting (its render threads died while starting). Try again shortly.');
    expect(answer.errors.map((l) => l.msg)).toEqual(['render threads unavailable']);
    expect(answer.errors[0]!.reqId).toBe(answer.body.requestId); // the problem's requestId finds the line
  });

  it("a store's refused write: a 503 saying what still works, logged with the driver's error and counted", async () => {
    const answer = await answerTo(sqliteReadOnly());
    expect(answer).toMatchObject({ status: 503, type: '/problems/unavailable', retryAfter: '5', counted: 1 });
    expect(answer.detail).toBe('The database is not accepting writes right now (read-only, full or failing disk). Labels without print=true still work; retry later.');
    expect(answer.errors.map((l) => [l.msg, l.err?.message])).toEqual([['store unavailable', 'attempt to write a readonly database']]);
  });

  it('an unreachable store: a 503 that does not say labels work', async () => {
    const answer = await answerTo(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(answer).toMatchObject({ status: 503, detail: 'The record store is unreachable. Retry shortly.', retryAfter: '5', counted: 1 });
    expect(answer.errors.map((l) => l.msg)).toEqual(['store unavailable']);
  });

  it('anything else: a 500 that says nothing of the error, logged', async () => {
    const answer = await answerTo(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(answer).toMatchObject({ status: 500, type: '/problems/internal-error', retryAfter: null, counted: 0 });
    expect(answer.detail).toBe('The request failed unexpectedly; quote its requestId when reporting it.');
    expect(answer.errors.map((l) => [l.msg, l.err?.message])).toEqual([['request failed', "Cannot read properties of undefined (reading 'secret')"]]);
  });
});
