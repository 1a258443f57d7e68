#!/usr/bin/env node
/**
 * Runs `npm run build` only when the compiled service in dist/ is older than its
 * sources, so `npm start` and `npm run labelmaker -- ...` start at once after the
 * first build instead of recompiling every time. Plain JavaScript on purpose: it
 * must run before anything is compiled.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
const inputs = ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newest(path) {
  const full = join(root, path);
  if (!existsSync(full)) return 0;
  const st = statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(full).map((name) => newest(join(path, name))));
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (newest('.') !== 0 && Math.max(...inputs.map(newest)) <= built) process.exit(0);
process.stderr.write('labelmaker: sources changed since the last build; compiling into dist/ ...\n');
execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
