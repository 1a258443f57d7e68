/**
 * `labelmaker import` as people run it: a real process on a real SQLite file (and
 * PostgreSQL), hostile files, a terminal (a pseudo-terminal from script(1)) and
 * pipes, standard input.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SITE_CSV, writeInventory } from '../../scripts/lib/import-data.js';
import { exited, runCli } from '../helpers/service.js';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable } from '../records/pg-test-db.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY = ['--import', 'tsx', 'src/main.ts'];
const HEADER = 'kind,id,name,description,parent_id,asset_id';
/** Raw bytes that must never reach a terminal from an imported file: C0 controls but tab/LF, DEL, C1 (0x80-0x9f as code points), bidi overrides. */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lm-import-cli-'));
  env = { DATABASE_URL: `sqlite:${join(dir, 'labelmaker.db')}` };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `import <fifo>` while the test writes the file into the FIFO in two halves,
 * `pauseMs` apart: an import that takes as long as we like, deterministically.
 * `tty`: under script(1), so the CLI's stderr is a terminal.
 */
async function importThroughFifo(rows: string[], pauseMs: number, tty: boolean): Promise<{ code: number | null; output: string }> {
  const fifo = join(dir, 'records.csv');
  execFileSync('mkfifo', [fifo]);
  const args = [...ENTRY, 'import', fifo];
  const child = tty
    ? spawn('script', ['-q', '-e', '-f', '-c', [process.execPath, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env, COLUMNS: '120' } })
    : spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const done = exited(child);
  const writer = createWriteStream(fifo);
  // Opening a FIFO for writing waits for its reader: the pause starts once the import reads, however slowly it started.
  await once(writer, 'ready');
  const half = Math.floor(rows.length / 2);
  await new Promise<void>((r, j) => writer.write([HEADER, ...rows.slice(0, half), ''].join('\n'), (e) => (e ? j(e) : r())));
  await new Promise((r) => setTimeout(r, pauseMs));
  writer.end([...rows.slice(half), ''].join('\n'));
  await once(writer, 'finish');
  const { code } = await done;
  return { code, output };
}

const items = (n: number) => Array.from({ length: n }, (_, i) => `item,i${i},Item ${i},,,${i + 1}`);

describe('import on a terminal and in a pipe', () => {
  it('shows progress on a terminal once an import takes more than two seconds', async () => {
    const { code, output } = await importThroughFifo(items(2000), 3500, true);
    expect(code).toBe(0);
    expect(output).toMatch(/records\.csv: reading · [\d,]+ rows · [\d,]+ rows\/s/); // a FIFO has no size: no bar, no percentage
    expect(output).toContain('imported 2000 record(s)');
  });

  it('shows no progress for a quick import, even on a terminal', async () => {
    const { code, output } = await importThroughFifo(items(20), 0, true);
    expect(code).toBe(0);
    expect(output).toContain('imported 20 record(s)');
    expect(output).not.toContain('reading');
  });

  it('never writes progress, carriage returns or escape sequences into a pipe', async () => {
    const { code, output } = await importThroughFifo(items(2000), 3500, false);
    expect(code).toBe(0);
    expect(output.replace(/^labelmaker: no database at this path yet: created a new, empty one \(first start\)\n/, '')).toMatch(/^imported 2000 record\(s\) from \S+records\.csv in [\d.]+ s: 2000 new or changed, 0 unchanged; the write held the database for [\d.]+ s\n$/);
  });

  it('reads standard input with -', async () => {
    const out = execFileSync(process.execPath, [...ENTRY, 'import', '-', '--format', 'json'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      input: JSON.stringify([{ kind: 'location', id: 'office', name: 'Office' }]),
    }).toString();
    expect(out).toMatch(/^imported 1 record\(s\) from standard input/);
  });

  it('says plainly when the file cannot be read, and creates no database for it', async () => {
    const fresh = { DATABASE_URL: `sqlite:${join(dir, 'never.db')}` };
    const result = await runCli(['import', join(dir, 'missing.csv')], fresh);
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`labelmaker: cannot read ${join(dir, 'missing.csv')}: no such file\n`);
  });
});

describe('hostile files', () => {
  it('never echoes escape sequences from the file, and lists the rules', async () => {
    const file = join(dir, 'evil.csv');
    writeFileSync(
      file,
      [
        `${HEADER},x\u001b]0;owned\u0007`,
        'item,a,b,,,,', // never read: the header is refused first
      ].join('\n'),
    );
    const header = await runCli(['import', file], env);
    expect(header.code).toBe(2);
    expect(header.stderr).toContain("row 1: unknown column 'x\\u{1b}]0;owned\\u{7}'");

    writeFileSync(
      file,
      [
        HEADER,
        'item,ok,Fine,,,',
        'item,esc,"Red \u001b[31m\u001b[2J",,,',
        'item,c1,"CSI \u009b31m",,,',
        'item,bidi,"\u202e\u2066",,,',
        'item,"id\u001b[1m",Name,,,',
        'location\u001b[5m,l,L,,,',
        `item,big,Big,"${'\u001b'.repeat(2000)}",,`,
      ].join('\r\n'),
    );
    const result = await runCli(['import', file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    expect(result.stderr).toContain(`nothing imported; 6 problem(s) in ${file}:`);
    expect(result.stderr).toContain("row 3: name contains U+001B, a control character: 'Red \\u{1b}[31m\\u{1b}[2J'");
    expect(result.stderr).toContain("row 4: name contains U+009B, a control character: 'CSI \\u{9b}31m'");
    expect(result.stderr).toContain("row 5: name has no visible character: '\\u{202e}\\u{2066}'");
    expect(result.stderr).toContain('row 8: description is longer than 1000 characters (2000)');
    expect(result.stderr).toContain('description: at most 1000 characters; line breaks and tabs allowed');
    expect(result.stderr).not.toContain('Usage:');
    expect(result.stdout).toBe('');

    const json = join(dir, 'evil.json');
    writeFileSync(json, JSON.stringify([{ kind: 'item', id: 'j', name: 'J', ['\u001b[8mhidden']: 1, colour: 'red' }, { kind: 'item', id: 'k', name: '\ud800' }]));
    const fromJson = await runCli(['import', json], env);
    expect(fromJson.stderr).not.toMatch(TERMINAL_CONTROL);
    expect(fromJson.stderr).toContain("row 1: unknown fields '\\u{1b}[8mhidden', 'colour'");
    expect(fromJson.stderr).toContain('row 2: name contains U+D800, a lone surrogate');
  });

  it('lists the first 200 problems and counts the rest', async () => {
    const file = join(dir, 'many.csv');
    writeFileSync(file, [HEADER, ...Array.from({ length: 1000 }, (_, i) => `item,i${i},,,,`)].join('\n'));
    const result = await runCli(['import', file], env);
    expect(result.stderr).toContain('nothing imported; 1000 problem(s)');
    expect(result.stderr).toContain('row 201: name is required\n  … and 800 more (the first 200 are listed, by row)');
    expect(result.stderr).not.toContain('row 202:');
  });
});

describe('scale', () => {
  it('imports 200,000 rows in bounded memory (the whole-file import peaked at 920 MB here)', async () => {
    writeFileSync(join(dir, 'site.csv'), SITE_CSV);
    expect((await runCli(['import', join(dir, 'site.csv')], env)).code).toBe(0);
    const file = join(dir, 'inventory.csv');
    await writeInventory(file, 200_000);
    const child = spawn(process.execPath, [...ENTRY, 'import', file], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
      } catch {
        // exited between two polls
      }
    }, 20);
    const { code } = await exited(child);
    clearInterval(poll);
    expect(code, out).toBe(0);
    expect(out).toContain('imported 200000 record(s)');
    // Bounded, not proportional to the file (the whole-file import peaked at 920 MB): about 110 MB
    // of process and tsx loader, the write's 64 MB page cache (WRITE_CACHE_KIB) and the staging
    // tables' caches. Measured with /usr/bin/time on the idle machine: 170 MB at 20,000 rows,
    // 302-309 MB at 200,000 (and 296 MB at 1,000,000 through dist/, without tsx: it levels off);
    // a loaded fresh-check went past the 300 MB bound this had (300.4).
    expect(peakKb / 1024).toBeLessThan(360);
    expect(peakKb).toBeGreaterThan(0);
  }, 120_000);
});

const unreachable = await postgresReachable();
describe.runIf(unreachable === undefined)('import into PostgreSQL through the CLI', () => {
  it('imports 100,000 rows under an existing parent in one go', async () => {
    const schema = await createTestSchema();
    try {
      const pgEnv = { DATABASE_URL: schema.url };
      writeFileSync(join(dir, 'site.csv'), SITE_CSV);
      expect((await runCli(['import', join(dir, 'site.csv')], pgEnv)).code).toBe(0);
      const file = join(dir, 'inventory.csv');
      const inv = await writeInventory(file, 100_000);
      const result = await runCli(['import', file], pgEnv);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^imported 100000 record\(s\) .*: 100000 new or changed, 0 unchanged/);
      const [{ n }] = (await schema.query('SELECT COUNT(*)::int AS n FROM records')) as [{ n: number }];
      expect(n).toBe(100_001);
      const [last] = (await schema.query(`SELECT parent_id, asset_id FROM records WHERE kind = 'item' AND id = '${inv.itemId(inv.items - 2)}'`)) as [{ parent_id: string; asset_id: string }];
      expect(last).toEqual({ parent_id: inv.locationId((inv.items - 2) % inv.locations), asset_id: String(inv.assetIdOf(inv.items - 2)) });
    } finally {
      await schema.drop();
    }
  }, 120_000);
});
if (unreachable !== undefined) {
  if (IN_CI) it('PostgreSQL must be reachable in CI', () => expect.fail(`${PG_TEST_URL_SAFE} unreachable: ${unreachable}`));
  else console.warn(`\n!! SKIPPING the PostgreSQL CLI import test: ${PG_TEST_URL_SAFE} unreachable (${unreachable}).\n`);
}
