/**
 * The problem catalogue (src/errors.ts) and the spec agree: the spec's Errors section
 * lists exactly the catalogue's types with their status and title, and every problem
 * the spec shows in an example is a catalogued type with that status and title.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SPEC_PATH } from '../../src/api/server.js';
import { PROBLEM_TYPES } from '../../src/errors.js';

type Json = Record<string, unknown>;
const spec = parse(readFileSync(SPEC_PATH, 'utf8')) as { info: { description: string } } & Json;

/** The rows of the table in the description's `## Errors` section: slug -> status and title. */
function errorsTable(): Record<string, { status: number; title: string }> {
  const section = /^## Errors$([\s\S]*?)^## /m.exec(spec.info.description)?.[1] ?? '';
  const rows = [...section.matchAll(/^\| `\/problems\/([a-z-]+)` \| (\d{3}) \| ([^|]+?) \|$/gm)];
  return Object.fromEntries(rows.map(([, slug, status, title]) => [slug!, { status: Number(status), title: title! }]));
}

/** Every object in the spec that looks like a problem body (an example's value): its type, status and title, and where. */
function problemExamples(value: unknown, at = '#'): { slug: string; status: unknown; title: unknown; at: string }[] {
  if (!value || typeof value !== 'object') return [];
  const here = value as Json;
  const found = typeof here.type === 'string' && here.type.startsWith('/problems/') && 'status' in here ? [{ slug: here.type.slice('/problems/'.length), status: here.status, title: here.title, at }] : [];
  return [...found, ...Object.entries(here).flatMap(([key, v]) => problemExamples(v, `${at}/${key}`))];
}

describe('problem types: the catalogue and the spec', () => {
  it("the spec's Errors section lists every catalogued type, with its status and title, and no other", () => {
    const table = errorsTable();
    expect(Object.keys(table).length).toBeGreaterThan(0);
    const catalogue = Object.fromEntries(Object.entries(PROBLEM_TYPES).map(([slug, { status, title }]) => [slug, { status, title }]));
    expect(table).toEqual(catalogue);
  });

  it("every problem in the spec's examples is a catalogued type with its status and title", () => {
    const examples = problemExamples(spec);
    expect(examples.length).toBeGreaterThan(30);
    const wrong = examples.filter(({ slug, status, title }) => {
      const known = PROBLEM_TYPES[slug as keyof typeof PROBLEM_TYPES];
      return !known || known.status !== status || known.title !== title;
    });
    expect(wrong).toEqual([]);
  });
});
