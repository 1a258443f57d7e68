/**
 * Render threads that keep dying while they start (seen from the client): label
 * requests get the documented 503 with Retry-After while the engine pauses between
 * restarts, never a hang or a 500, and labels come back once the threads live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TEMPLATE_NAMES } from '../../src/labels/index.js';
import { readPngHeader } from '../helpers/png.js';
import { problemErrors } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RENDER_THREADS: '2' });
});
afterAll(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('render threads that die while starting', () => {
  it('answers 503 with Retry-After while the engine restarts, then labels again', async () => {
    const get = (id: string) => fetch(`${server.url}/v1/labelmaker/location/${id}`, { headers: { Authorization: `Bearer ${server.tokens.read}` } });
    expect((await get('garage')).status).toBe(200); // the pool is up

    // Stop every render thread as soon as it exists, so replacements die while loading.
    let killing = true;
    const killer = (async () => {
      while (killing) {
        await Promise.all(server.renderer.workers().map((w) => w.terminate()));
        await sleep(2);
      }
    })();
    // Distinct labels (no cache hits) until the engine says it is restarting, and readiness
    // (asked right after) agrees; the pauses grow while the threads keep dying.
    let unavailable: Response | undefined;
    let readiness: { status: number; checks: Record<string, { ok: boolean; detail?: string }> } | undefined;
    const seen = new Set<number>();
    const labels = ['shelf-3', 'bin-12', 'garage'].flatMap((id) => BUILT_IN_TEMPLATE_NAMES.map((t) => `${id}?template=${t}`));
    const deadline = Date.now() + 30_000;
    for (let n = 0; readiness?.status !== 503 && n < labels.length && Date.now() < deadline; n++) {
      const res = await get(labels[n]!);
      seen.add(res.status);
      if (res.status !== 503) {
        await res.arrayBuffer();
        continue;
      }
      unavailable = res;
      const ready = await fetch(`${server.url}/readyz`);
      readiness = { status: ready.status, ...((await ready.json()) as { checks: Record<string, { ok: boolean; detail?: string }> }) };
    }
    killing = false;
    await killer;

    expect(unavailable, `statuses seen: ${[...seen].join(', ')}`).toBeDefined();
    expect([...seen].every((s) => s === 200 || s === 503 || s === 500), `statuses seen: ${[...seen].join(', ')}`).toBe(true);
    expect(unavailable!.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(unavailable!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    const problem = (await unavailable!.json()) as { detail: string; requestId: string };
    expect(problemErrors(problem)).toBeUndefined();
    expect(problem.detail).toMatch(/restarting/);
    // Readiness says so too, so a load balancer moves traffic to another instance.
    expect(readiness?.status).toBe(503);
    expect(readiness!.checks.renderer?.ok).toBe(false);
    expect(readiness!.checks.renderer?.detail).toMatch(/starts again in \d+ s/);

    // After Retry-After the engine starts again and draws.
    await sleep(retryAfter * 1000);
    let healed: Response | undefined;
    for (let i = 0; i < 20 && healed?.status !== 200; i++) {
      if (healed) await sleep(500);
      healed = await get('bin-12?template=brother-ql-62x29');
    }
    expect(healed!.status).toBe(200);
    expect(readPngHeader(Buffer.from(await healed!.arrayBuffer())).width).toBeGreaterThan(100);
    expect(server.renderer.workers().length).toBe(2);
    const readyAgain = await fetch(`${server.url}/readyz`);
    expect(readyAgain.status).toBe(200);
    expect(((await readyAgain.json()) as { checks: { renderer?: unknown } }).checks.renderer).toEqual({ ok: true });
  }, 90_000);
});
