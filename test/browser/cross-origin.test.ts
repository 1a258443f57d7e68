/**
 * The API from a web page on another origin, in real Chromium, against the server
 * and the mock: the page fetches a label with a bearer token (a preflighted
 * request), reads its ETag, shows the PNG in an <img>, and reads a problem body.
 * A server without CORS_ALLOW_ORIGINS must fail the same page (the test can fail).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { launchBrowser, servePage } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The page a frontend developer would write; it reports what it saw in window.result. */
const PAGE = `<!doctype html><html><body><img id="label" alt="label"><script>
async function run(base, token, labelPath, problemPath, problemHeaders) {
  const headers = { Authorization: 'Bearer ' + token, Accept: 'image/png, application/problem+json' };
  const out = {};
  try {
    const res = await fetch(base + labelPath, { headers });
    out.status = res.status;
    out.etag = res.headers.get('ETag');
    out.rateLimit = res.headers.get('RateLimit-Remaining');
    const img = document.getElementById('label');
    img.src = URL.createObjectURL(await res.blob());
    await img.decode();
    out.width = img.naturalWidth;
    out.height = img.naturalHeight;
    const bad = await fetch(base + problemPath, { headers: { ...headers, ...problemHeaders } });
    out.problemStatus = bad.status;
    out.problemContentType = bad.headers.get('Content-Type');
    out.problem = await bad.json();
  } catch (err) {
    out.error = String(err);
  }
  return out;
}
</script></body></html>`;

let page: Awaited<ReturnType<typeof servePage>>;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let mock: RunningMock;
let allowed: TestServer;
let star: TestServer;
let closed: TestServer;
beforeAll(async () => {
  page = await servePage(PAGE);
  [browser, mock, allowed, star, closed] = await Promise.all([
    launchBrowser(),
    startMock(),
    startTestServer({ CORS_ALLOW_ORIGINS: page.origin }),
    startTestServer({ CORS_ALLOW_ORIGINS: '*' }),
    startTestServer(),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([browser?.close(), mock?.close(), allowed?.stop(), star?.stop(), closed?.stop(), page?.close()]);
});

async function runInPage(base: string, token: string, labelPath: string, problemPath: string, problemHeaders: Record<string, string> = {}) {
  const tab = await browser.context.newPage();
  try {
    await tab.goto(page.url);
    return await tab.evaluate(
      ([b, t, l, p, h]) => (window as unknown as { run: (...a: unknown[]) => Promise<Record<string, unknown>> }).run(b, t, l, p, h),
      [base, token, labelPath, problemPath, problemHeaders] as const,
    );
  } finally {
    await tab.close();
  }
}

describe('a page on another origin', () => {
  it.each([
    ['the server (its origin listed in CORS_ALLOW_ORIGINS)', () => allowed],
    ['the server (CORS_ALLOW_ORIGINS=*)', () => star],
  ])('%s: fetches a label, reads its ETag, shows the PNG, reads a problem', async (_name, target) => {
    const srv = target();
    const out = await runInPage(srv.url, srv.tokens.read, '/v1/labelmaker/assets/000-001?template=zebra-2x1-203dpi', '/v1/labelmaker/assets/000-999');
    expect(out.error).toBeUndefined();
    expect(out).toMatchObject({ status: 200, width: 406, height: 203, problemStatus: 404, problemContentType: 'application/problem+json' });
    expect(out.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(out.rateLimit).toMatch(/^\d+$/);
    expect(out.problem).toMatchObject({ type: '/problems/not-found', status: 404 });
  });

  it('the mock: fetches a label, reads its ETag, shows the PNG, reads a problem (Prefer: code=404)', async () => {
    const out = await runInPage(mock.url, 'any', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/assets/000-001', { Prefer: 'code=404' });
    expect(out.error).toBeUndefined();
    expect(out).toMatchObject({ status: 200, problemStatus: 404, problemContentType: 'application/problem+json' });
    expect(out.width as number).toBeGreaterThan(100);
    expect(out.etag).toMatch(/^"/);
    expect(out.problem).toMatchObject({ type: '/problems/not-found' });
  });

  it('the mock: an invalid request from the page gets the server problem', async () => {
    const out = await runInPage(mock.url, 'any', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/assets/000-001?template=a4');
    expect(out).toMatchObject({ problemStatus: 400, problem: { type: '/problems/invalid-request' } });
  });

  it('a server without CORS_ALLOW_ORIGINS is closed to the page (the browser blocks it)', async () => {
    const out = await runInPage(closed.url, closed.tokens.read, '/v1/labelmaker/assets/000-001', '/v1/labelmaker/assets/000-999');
    expect(out.error).toMatch(/Failed to fetch/);
  });
});
