/** The spec as data, and validators built from its own schemas. */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const spec: Json = parse(readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8'));

// ajv-formats is CommonJS; under NodeNext its function may sit on .default.
const formatsExport = addFormatsModule as unknown as { default?: (ajv: Ajv) => Ajv } & ((ajv: Ajv) => Ajv);
const addFormats = formatsExport.default ?? formatsExport;
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
