/**
 * The typed client as another project uses it: built into its own package
 * (scripts/client-package/), packed, installed into an empty project, type-checked there against
 * its .d.ts (a wrong call must not compile), and run against the real server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules/.bin/tsc');

let srv: TestServer;
let app: string;
beforeAll(async () => {
  srv = await startTestServer();
  app = mkdtempSync(join(tmpdir(), 'lm-client-app-'));
  await run(process.execPath, ['--import', 'tsx', 'scripts/build-client.ts'], { cwd: ROOT });
  await run('npm', ['pack', join(ROOT, 'scripts', 'client-package'), '--pack-destination', app], { cwd: app });
  const tarball = readdirSync(app).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`], { cwd: app, timeout: 120_000 });
}, 180_000);
afterAll(async () => {
  await srv?.stop();
  if (app) rmSync(app, { recursive: true, force: true });
});

const TSC_ARGS = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom,dom.iterable'];

describe('@labelmaker/client outside this repository', () => {
  it('type-checks a correct consumer and rejects a wrong call', async () => {
    writeFileSync(
      join(app, 'good.ts'),
      `import { createLabelmakerClient, LabelmakerError, type InventoryRecord } from '@labelmaker/client';
const c = createLabelmakerClient({ baseUrl: 'http://x', token: 't' });
export async function f(): Promise<number> {
  const l = await c.label('assets', '000-001', { template: 'zebra-2x1-203dpi' });
  const page = await c.records({ kind: 'asset', limit: 10 });
  const first: InventoryRecord | undefined = page.records[0];
  return l.png.length + (first?.childCount ?? 0) + (new LabelmakerError({ type: 'x', title: 'y', status: 400 }).problem.status);
}
`,
    );
    writeFileSync(join(app, 'bad.ts'), `import { createLabelmakerClient } from '@labelmaker/client';\nawait createLabelmakerClient({ baseUrl: 'x', token: 't' }).records({ kind: 'bin' });\n`);
    await run(TSC, [...TSC_ARGS, 'good.ts'], { cwd: app });
    const bad = await run(TSC, [...TSC_ARGS, 'bad.ts'], { cwd: app }).then(() => undefined, (e: { stdout: string }) => e.stdout);
    expect(bad).toMatch(/bad\.ts.*"bin"/);
  });

  it('runs against the real server', async () => {
    writeFileSync(
      join(app, 'main.mjs'),
      `import { createLabelmakerClient } from '@labelmaker/client';
const c = createLabelmakerClient({ baseUrl: process.argv[2], token: process.argv[3] });
const label = await c.label('assets', '1');
const names = [];
for await (const r of c.allRecords({ limit: 2 })) names.push(r.name);
console.log(JSON.stringify({ png: Buffer.from(label.png.subarray(1, 4)).toString(), etag: label.etag, names }));
`,
    );
    const { stdout } = await run(process.execPath, ['main.mjs', srv.url, srv.tokens.read], { cwd: app });
    const out = JSON.parse(stdout);
    expect(out.png).toBe('PNG');
    expect(out.etag).toMatch(/^"/);
    expect(out.names).toContain('Cordless drill');
    expect(out.names.length).toBe(6);
  });
});
