/** The published YAML parses the same in strict and older (YAML 1.1) tools. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const text = readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8');

describe('spec/openapi.yaml as YAML', () => {
  it('means the same under YAML 1.1 and 1.2, with unique keys', () => {
    const v12 = parse(text, { version: '1.2', uniqueKeys: true, strict: true });
    const v11 = parse(text, { version: '1.1', uniqueKeys: true, strict: true });
    expect(v11).toEqual(v12);
  });

  it('quotes every scope (a plain `labels:read` in a flow sequence trips strict parsers)', () => {
    expect(text).not.toMatch(/\[\s*labels:/);
    expect(text).toMatch(/x-required-scopes: \["labels:read"\]/);
  });
});
