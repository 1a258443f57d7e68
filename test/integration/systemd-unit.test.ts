/**
 * deploy/systemd/labelmaker.service passes `systemd-analyze verify` (installed by
 * scripts/setup --test; the test fails where it is missing), with its ExecStart pointed at
 * this clone's bin/labelmaker as an installation's would be.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const UNIT = readFileSync(join(ROOT, 'deploy/systemd/labelmaker.service'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'lm-systemd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verify(text: string): Promise<{ code: number; stderr: string }> {
  const file = join(dir, 'labelmaker.service');
  writeFileSync(file, text);
  try {
    const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', '--man=no', file], { timeout: 60_000 });
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('systemd-analyze is not installed: run scripts/setup --test (Debian package systemd)');
    return { code: typeof e.code === 'number' ? e.code : 1, stderr: e.stderr ?? '' };
  }
}

describe('the systemd unit', () => {
  it('verifies clean, running the labelmaker command with its state in /var/lib/labelmaker', async () => {
    expect(UNIT).toMatch(/^ExecStart=\/opt\/labelmaker\/bin\/labelmaker serve$/m);
    expect(UNIT).toMatch(/^StateDirectory=labelmaker$/m);
    expect(UNIT).toMatch(/^Environment=DATA_DIR=\/var\/lib\/labelmaker$/m);
    const result = await verify(UNIT.replaceAll('/opt/labelmaker', ROOT));
    expect(result.stderr.split('\n').filter((l) => l.includes('labelmaker.service'))).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('fails on a unit systemd would refuse (the check can fail)', async () => {
    const result = await verify(UNIT.replaceAll('/opt/labelmaker', ROOT).replace(/^Type=exec$/m, 'Type=sometimes').replace(/^ExecStart=.*$/m, 'ExecStart=bin/labelmaker serve'));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('labelmaker.service');
  });
});
