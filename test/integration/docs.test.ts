/**
 * The published contract: /openapi.yaml, /openapi.json, and the API reference at
 * /docs rendered by a real headless Chromium with no network but loopback.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { spec } from '../helpers/spec.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('published spec', () => {
  it('serves the same document as YAML and JSON', async () => {
    const json = await (await fetch(`${srv.url}/openapi.json`)).json();
    expect(json).toEqual(spec);
    const yaml = await fetch(`${srv.url}/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
  });

  it('serves the reference page and its assets locally, under a CSP without remote sources', async () => {
    const page = await fetch(`${srv.url}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/init.js']) {
      expect((await fetch(srv.url + asset)).status, asset).toBe(200);
    }
  });

  it('cannot be framed and allows no plugins, <base> or form targets: the studio page\'s header set', async () => {
    const page = await fetch(`${srv.url}/docs`);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "script-src 'self'"]) {
      expect(csp, directive).toContain(directive);
    }
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('renders every operation in a real browser', async () => {
    if (!CHROMIUM) throw new Error('Chromium is not installed: run scripts/setup --test');
    const profile = mkdtempSync(join(tmpdir(), 'lm-chromium-'));
    try {
      const { stdout } = await promisify(execFile)(
        CHROMIUM,
        [
          '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
          '--disable-background-networking', '--disable-component-update', '--disable-sync',
          `--user-data-dir=${profile}`, '--virtual-time-budget=10000', '--dump-dom', `${srv.url}/docs`,
        ],
        { timeout: 60_000, maxBuffer: 20 * 1024 * 1024 },
      );
      for (const summary of ['Get Location label', 'Get Asset label', 'Get Item label', 'Get print job']) expect(stdout).toContain(summary);
      expect(stdout).toContain('Labelmaker API');
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
