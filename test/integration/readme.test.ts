/**
 * Every curl example in README.md and docs/ runs as pasted: blocks marked
 * `<!-- example: demo -->` against the demo service (scripts/run's data, the demo
 * token in $TOKEN, its URL in $BASE), blocks marked `<!-- example: mock -->` against
 * `npm run mock`. Each block runs under `bash -e`; curl -f makes an HTTP error fail it.
 * A curl block without a marker fails the test: nothing in the README or docs/ goes untested.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { DOC_FILES, ROOT } from '../helpers/docs.js';
import { killAllServices, startService, type Service } from '../helpers/service.js';

interface Example {
  target: 'demo' | 'mock';
  where: string;
  code: string;
}

function examples(): { marked: Example[]; unmarked: string[] } {
  const marked: Example[] = [];
  const unmarked: string[] = [];
  const re = /(?:<!-- example: (demo|mock) -->\n)?```sh\n([\s\S]*?)```/g;
  for (const file of DOC_FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(re)) {
      const where = `${file}:${text.slice(0, m.index).split('\n').length}`;
      if (m[1]) marked.push({ target: m[1] as Example['target'], where, code: m[2]! });
      else if (/\bcurl\b/.test(m[2]!)) unmarked.push(where);
    }
  }
  return { marked, unmarked };
}

let dir: string;
let demo: Service;
let token: string;
let mock: RunningMock;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-readme-'));
  [demo, mock] = await Promise.all([
    startService({ DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`, DEMO: 'true', PRINTER_URI: `file://${join(dir, 'printed')}`, PRINT_RETRY_BASE_MS: '50' }),
    startMock(),
  ]);
  await new Promise((r) => setTimeout(r, 300)); // the banner follows the listening line
  token = /\s(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})\s/.exec(demo.stderr())![1]!;
}, 60_000);
afterAll(async () => {
  killAllServices();
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('README and docs/ examples', () => {
  it('every curl block is marked as an example to run', () => {
    expect(examples().unmarked).toEqual([]);
    expect(examples().marked.length).toBeGreaterThanOrEqual(6);
    // The README keeps one example per main use, not only links.
    expect(examples().marked.filter((e) => e.where.startsWith('README.md:')).length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples().marked.map((e) => [`${e.where} (${e.target})`, e] as const))('%s runs as pasted', async (_name, example) => {
    const code = example.code.replaceAll('http://127.0.0.1:4010', mock.url);
    const cwd = mkdtempSync(join(dir, 'run-'));
    const env = { ...process.env, TOKEN: token, BASE: demo.url.replace('127.0.0.1', 'localhost') };
    const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', code], { cwd, env, timeout: 60_000 });
    // The comments show what comes back; the key parts must.
    for (const shown of [...code.matchAll(/^# (HTTP \d{3}|\d{3})$/gm)].map((m) => m[1]!)) expect(stdout).toContain(shown);
    if (example.target === 'demo' && code.includes('print=true')) expect(stdout).toMatch(/"state":"(queued|printing|printed)"/);
  });
});
