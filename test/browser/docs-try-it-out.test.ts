/**
 * /docs as a newcomer uses it, in real Chromium: authorize with a token, open an
 * operation, "Try it out", execute. The request must go to the server that served
 * the page (not the spec's placeholder host) and come back 200 with the label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
});

describe('/docs "Try it out"', () => {
  it('fetches a label from the server that served the page', async () => {
    const tab = await browser.context.newPage();
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(r.url()));
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.goto(`${srv.url}/docs`);
    await tab.locator('.btn.authorize').click();
    await tab.locator('.auth-container input').first().fill(srv.tokens.read);
    await tab.locator('.auth-btn-wrapper .authorize').click();
    await tab.locator('.btn-done').click();

    const op = tab.locator('#operations-Labels-getAssetLabel');
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    // The parameter comes pre-filled with the spec's example (000-001, an asset the demo data has too).
    const id = op.locator('tr[data-param-name="id"] input');
    expect(await id.inputValue()).toBe('000-001');
    // No Idempotency-Key is pre-filled: a second "Execute" must not reuse one by accident.
    expect(await op.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('');
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await op.locator('.live-responses-table img').count()).toBe(1);
    expect(requests.some((u) => u.startsWith(`${srv.url}/v1/labelmaker/assets/000-001`))).toBe(true);
    expect(requests.filter((u) => !u.startsWith(srv.url) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);
    expect(errors).toEqual([]);
    if (process.env.LM_SCREENSHOTS) await tab.screenshot({ path: `${process.env.LM_SCREENSHOTS}/docs-try-it-out.png`, fullPage: false });
    await tab.close();
  });

  it('serves only the files the page needs from /docs/assets', async () => {
    for (const ok of ['swagger-ui-bundle.js', 'swagger-ui.css']) expect((await fetch(`${srv.url}/docs/assets/${ok}`)).status, ok).toBe(200);
    for (const no of ['package.json', 'index.html', 'swagger-ui-bundle.js.map', 'swagger-initializer.js', 'swagger-ui-es-bundle.js', '../package.json', 'oauth2-redirect.html']) {
      const res = await fetch(`${srv.url}/docs/assets/${no}`);
      expect(res.status, no).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });
});
