/**
 * docs/development.md's Dependencies table names every runtime dependency of
 * package.json, and nothing else: a dependency added or dropped without its
 * reason written down fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/docs.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const doc = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');

/** The packages named (in backticks) in the first column of the Dependencies table. */
function tabled(markdown: string): string[] {
  const section = /^## Dependencies\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| package') && !l.startsWith('|---'));
  return rows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe('docs/development.md Dependencies', () => {
  const named = tabled(doc);

  it('lists every runtime dependency', () => {
    expect(named.length).toBeGreaterThan(0);
    for (const dep of Object.keys(pkg.dependencies)) expect(named, dep).toContain(dep);
  });

  it('lists only runtime dependencies, each once', () => {
    for (const name of named) expect(Object.keys(pkg.dependencies), name).toContain(name);
    expect(new Set(named).size).toBe(named.length);
  });
});
