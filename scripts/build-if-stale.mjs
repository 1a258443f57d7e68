#!/usr/bin/env node
/**
 * Runs a build only when its output is older than its sources, so `npm start` and
 * `npm run labelmaker -- ...` start at once after the first build instead of
 * recompiling every time: the service (`npm run build` into dist/) and the label
 * studio the service serves at `/` (`npm run build:studio` into studio/dist/).
 * `--studio` builds only the studio (the test run needs no compiled service).
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const TARGETS = {
  service: {
    stamp: 'dist/.build-stamp',
    inputs: ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package.json'],
    script: 'build',
    what: 'compiling into dist/',
  },
  studio: {
    stamp: 'studio/dist/.build-stamp',
    // The studio bundles the typed client, the generated types and the record kinds (its stocks come from the service).
    inputs: ['studio/src', 'studio/index.html', 'studio/vite.config.ts', 'src/client.ts', 'src/records/kinds.ts', 'generated', 'package.json'],
    script: 'build:studio',
    what: 'building the label studio into studio/dist/',
  },
};

function newest(path) {
  const full = join(root, path);
  if (!existsSync(full)) return 0;
  const st = statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(full).map((name) => newest(join(path, name))));
}

function buildIfStale({ stamp, inputs, script, what }) {
  const stampPath = join(root, stamp);
  const built = existsSync(stampPath) ? statSync(stampPath).mtimeMs : 0;
  if (Math.max(...inputs.map(newest)) <= built) return;
  process.stderr.write(`labelmaker: sources changed since the last build; ${what} ...\n`);
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], { cwd: root, stdio: 'inherit' });
  writeFileSync(stampPath, `${new Date().toISOString()}\n`);
}

const only = process.argv.includes('--studio') ? ['studio'] : ['service', 'studio'];
for (const name of only) buildIfStale(TARGETS[name]);
