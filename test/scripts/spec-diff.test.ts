/* eslint-disable @typescript-eslint/no-explicit-any -- the mutations reach into the spec as untyped JSON */
import { describe, expect, it } from 'vitest';
import { breakingChanges, compareVersions } from '../../scripts/lib/spec-diff.js';
import { spec } from '../helpers/spec.js';

const clone = () => structuredClone(spec);
const ASSET = '/v1/labelmaker/assets/{id}';

describe('breakingChanges', () => {
  it('finds nothing between the spec and itself', () => {
    expect(breakingChanges(spec, clone())).toEqual([]);
  });

  it('allows additions: an enum value, an optional parameter, a response, an operation', () => {
    const next = clone();
    // A request-side enum of its own (LabelKind is in answers too, where a new value is breaking).
    next.components.parameters.RecordKind.schema = { type: 'string', enum: [...spec.components.schemas.LabelKind.enum, 'bin'] };
    next.paths[ASSET].get.parameters.push({ name: 'copies', in: 'query', required: false, schema: { type: 'integer' } });
    next.paths[ASSET].get.responses['409'] = { description: 'x' };
    next.paths['/v1/labelmaker/shelves'] = { get: { responses: {} } };
    expect(breakingChanges(spec, next)).toEqual([]);
  });

  it.each([
    ['a removed operation', (s: any) => delete s.paths[ASSET], /GET \/v1\/labelmaker\/assets\/\{id\}: operation removed/],
    ['a removed parameter', (s: any) => s.paths[ASSET].get.parameters.splice(s.paths[ASSET].get.parameters.findIndex((p: any) => p.$ref?.endsWith('/Template')), 1), /parameter query template removed/],
    ['a narrowed enum (a named schema the parameter refers to)', (s: any) => s.components.schemas.LabelKind.enum.splice(2, 1), /kind: enum narrowed \(no longer: asset\)/],
    ['a parameter made required', (s: any) => (s.components.parameters.Print.required = true), /parameter query print became required/],
    ['a new required parameter', (s: any) => s.paths[ASSET].get.parameters.push({ name: 'site', in: 'query', required: true, schema: { type: 'string' } }), /new required parameter query site/],
    ['a shorter maxLength', (s: any) => (s.components.schemas.RecordId.maxLength = 32), /maxLength lowered to 32/],
    ['a changed type', (s: any) => (s.components.parameters.Print.schema = { type: 'string' }), /print: type boolean -> string/],
    ['a removed response', (s: any) => delete s.paths[ASSET].get.responses['404'], /response 404 removed/],
    ['a removed response media type', (s: any) => delete s.components.responses.Label.content['image/png'], /response 200 image\/png removed/],
    ['a removed response property', (s: any) => delete s.components.schemas.Problem.properties.detail, /property detail removed/],
    ['a new response enum value', (s: any) => s.components.schemas.PrintJobState.enum.push('paused'), /new enum values paused/],
    ['a new scope', (s: any) => s.paths[ASSET].get['x-required-scopes'].push('labels:admin'), /now needs scope labels:admin/],
  ])('flags %s', (_what, mutate, message) => {
    const next = clone();
    mutate(next);
    const found = breakingChanges(spec, next);
    expect(found.join('\n')).toMatch(message);
  });
});

describe('an enum widened to a pattern', () => {
  const withTemplate = (schema: object) => {
    const s = clone();
    s.components.schemas.Template = schema;
    return s;
  };
  const old = withTemplate({ type: 'string', enum: ['brother-ql-62x29', 'zebra-2.25x1.25-203dpi'] });

  it('is allowed when the pattern and bounds accept every old value', () => {
    expect(breakingChanges(old, withTemplate({ type: 'string', maxLength: 64, pattern: '^[a-z0-9][a-z0-9._-]*$' }))).toEqual([]);
  });

  it.each([
    ['a pattern that refuses an old value', { type: 'string', pattern: '^[a-z0-9-]*$' }, /template: pattern changed/],
    ['a maxLength shorter than an old value', { type: 'string', maxLength: 16, pattern: '^[a-z0-9._-]*$' }, /template: maxLength lowered to 16/],
  ])('flags %s', (_what, schema, message) => {
    expect(breakingChanges(old, withTemplate(schema)).join('\n')).toMatch(message);
  });
});

describe('compareVersions', () => {
  it('orders numerically, not as text', () => {
    expect(['1.10.0', '1.2.0', '1.9.3'].sort(compareVersions)).toEqual(['1.2.0', '1.9.3', '1.10.0']);
  });
});
