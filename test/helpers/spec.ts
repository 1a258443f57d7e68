/** The spec as data, and validators built from its own schemas. */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { addFormats } from '../../src/api/ajv-formats.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const spec: Json = parse(readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8'));

const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
// Resolve '#/components/...' refs against the spec itself.
ajv.addSchema({ ...spec, $id: 'spec' });
const problemValidator = ajv.compile({ $ref: 'spec#/components/schemas/Problem' });

export function problemErrors(body: unknown): string | undefined {
  return problemValidator(body) ? undefined : ajv.errorsText(problemValidator.errors);
}

/** The spec's response object for an operation and status, with $refs resolved one level. */
export function documentedResponse(operationId: string, status: number): Json | undefined {
  for (const pathItem of Object.values<Json>(spec.paths)) {
    for (const op of Object.values<Json>(pathItem)) {
      if (op?.operationId !== operationId) continue;
      const r = op.responses[String(status)];
      if (!r) return undefined;
      return r.$ref ? resolve(r.$ref) : r;
    }
  }
  throw new Error(`no operation ${operationId} in the spec`);
}

export function resolve(ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
}

/** Errors of a value against a schema from the spec (refs resolved against it), or undefined. */
export function schemaErrors(schema: Json, value: unknown): string | undefined {
  const validate = ajv.compile(withSpecRefs(schema));
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

/** Header values arrive as text: integers are compared as numbers. */
export function headerErrors(header: Json, value: string): string | undefined {
  const schema = header.$ref ? resolve(header.$ref).schema : header.schema;
  const resolved = schema.$ref ? resolve(schema.$ref) : schema;
  const typed = resolved.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
  return schemaErrors(resolved, typed);
}

/** Rewrites local '#/...' refs to point into the registered spec. */
function withSpecRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"spec#/'));
}
