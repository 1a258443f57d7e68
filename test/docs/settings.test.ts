/**
 * The names a config file may hold (SETTINGS in src/config.ts; any other name stops the
 * start) against the docs: every setting of the configuration table in docs/operations.md is
 * accepted, and every accepted name is documented, so a documented setting can never be
 * refused as a typo.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.js';

const docs = new URL('../../docs/', import.meta.url);
const operations = readFileSync(new URL('operations.md', docs), 'utf8');
const table = operations.slice(operations.indexOf('\n## Configuration\n'), operations.indexOf('\n## ', operations.indexOf('\n## Configuration\n') + 5));

describe('the settings a config file accepts', () => {
  it('include every setting of the configuration table', () => {
    const names = [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((n) => n[1]!));
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((n) => !(SETTINGS as readonly string[]).includes(n))).toEqual([]);
  });

  it('are each documented', () => {
    const all = readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => readFileSync(new URL(f, docs), 'utf8')).join('\n');
    expect(SETTINGS.filter((n) => !all.includes(`\`${n}\``))).toEqual([]);
  });
});
