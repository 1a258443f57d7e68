/**
 * `labelmaker ...` (bin/labelmaker; also `npm run labelmaker -- ...`) and `npm start` compile the project only when a
 * source changed since the last build, not on every run.
 */
import { execFile } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STAMP = join(ROOT, 'dist/.build-stamp');
const cli = () => promisify(execFile)('npm', ['run', '--silent', 'labelmaker', '--', '--help'], { cwd: ROOT, timeout: 180_000 });

describe('the CLI builds once', () => {
  it('compiles after a source change, then runs without compiling', { timeout: 240_000 }, async () => {
    const source = join(ROOT, 'src/commands.ts');
    const now = new Date();
    utimesSync(source, now, now); // as if just edited
    const first = await cli();
    expect(first.stderr).toContain('compiling into dist/');
    expect(first.stdout).toContain('Usage: labelmaker');
    const built = statSync(STAMP).mtimeMs;

    const started = Date.now();
    const second = await cli();
    expect(second.stderr).not.toContain('compiling');
    expect(second.stdout).toContain('Usage: labelmaker');
    expect(statSync(STAMP).mtimeMs).toBe(built);
    console.log(`CLI without a rebuild: ${Date.now() - started} ms`);
  });
});
