/**
 * A fingerprint of everything besides a label's inputs that decides its bytes:
 * the engine's own code (every file of this folder, as deployed), the bundled
 * font files and the canvas (Cairo/Pango) version. Label caches and ETags
 * include it, so a deployment with a different engine never serves or
 * revalidates bytes drawn by the old one. Computed once per process.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FONT_FILES } from './font-files.js';

const here = dirname(fileURLToPath(import.meta.url));

function compute(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(here).sort()) {
    if (!/\.(js|ts|conf)$/.test(name) || name.endsWith('.d.ts')) continue;
    hash.update(name).update('\0').update(readFileSync(join(here, name))).update('\0');
  }
  // Font files are large: their paths and sizes stand for them.
  for (const f of FONT_FILES) hash.update(`${f.file}\0${statSync(f.file).size}\0`);
  const canvas = createRequire(import.meta.url)('canvas/package.json') as { version: string };
  hash.update(`canvas ${canvas.version}`);
  return hash.digest('base64url').slice(0, 16);
}

let version: string | undefined;

export function engineVersion(): string {
  return (version ??= compute());
}
