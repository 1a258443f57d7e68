/**
 * What a `template` name stands for, and the rules of template requests that
 * need no database (shared with the mock, so both answer them alike).
 *
 * resolveTemplate is the ONE place a `template` parameter becomes a design:
 * the label operations use it, and so will anything else that takes a template
 * (sheets, batches): built-in templates first (stock names and aliases, which
 * saved templates may not take), then saved ones.
 */
import { builtInTemplate, findStock, type Template } from '../labels/index.js';
import type { TemplateStore } from '../records/index.js';
import { savedEngineTemplate } from './template-design.js';
import type { RequestHeadersOf } from './operations.js';
import { HttpProblem } from './problems.js';

/** `parameter`: where the name came from, for the 400 (default: the query's `template`). */
export type TemplateResolver = (name: string, parameter?: string) => Promise<Template>;

/** The 400 for a `template` that names nothing (the spec's pattern lets any well-formed name through). */
export function unknownTemplate(name: string, parameter = 'query parameter template'): HttpProblem {
  return new HttpProblem('invalid-request', `${parameter}: no template is named ${name} (a stock name, a stock's alias, or a saved template: see listLabelTemplates).`);
}

/** Engine templates of saved designs by ETag: a changed template has a new ETag, so nothing is ever stale. */
const CACHE_MAX = 64;

export function templateResolver(store: TemplateStore): TemplateResolver {
  const cache = new Map<string, Template>();
  return async (name, parameter) => {
    const builtIn = builtInTemplate(name);
    if (builtIn) return builtIn;
    const saved = await store.get(name);
    if (!saved) throw unknownTemplate(name, parameter);
    let template = cache.get(saved.etag);
    if (!template) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
      template = savedEngineTemplate(saved);
      cache.set(saved.etag, template);
    }
    return template;
  };
}

/** 409 for a name a built-in template has (stock names and aliases are not for saving). */
export function assertNameFree(name: string): void {
  if (findStock(name)) {
    throw new HttpProblem('template-name-reserved', `${name} is the name of a built-in template (a label stock); choose another name.`);
  }
}

export type Precondition = { create: true } | { ifMatch: string };

/**
 * What a change asks for: `If-None-Match: *` creates, `If-Match` replaces or
 * deletes; without either (or, to delete, without If-Match) it is a 428, so
 * no editor overwrites another by accident.
 */
export function preconditionOf(headers: RequestHeadersOf<'putLabelTemplate'>, operation: 'put'): Precondition;
export function preconditionOf(headers: RequestHeadersOf<'deleteLabelTemplate'>, operation: 'delete'): { ifMatch: string };
export function preconditionOf(headers: RequestHeadersOf<'putLabelTemplate'>, operation: 'put' | 'delete'): Precondition {
  const ifMatch = headers['if-match']?.trim();
  const ifNoneMatch = headers['if-none-match']?.trim();
  if (operation === 'put' && ifMatch && ifNoneMatch) {
    throw new HttpProblem('invalid-request', 'Send If-Match (to replace) or If-None-Match: * (to create), not both.');
  }
  if (ifMatch) return { ifMatch };
  if (operation === 'put' && ifNoneMatch === '*') return { create: true };
  throw new HttpProblem(
    'precondition-required',
    operation === 'put'
      ? "Send If-Match with the template's ETag to replace it, or If-None-Match: * to create it."
      : "Send If-Match with the template's ETag to delete it.",
  );
}

/**
 * A change whose precondition is optional (putPrinter): `If-None-Match: *` creates only,
 * `If-Match` replaces only at that ETag (or `*`: whatever it is now); neither: either.
 */
export function optionalPreconditionOf(headers: RequestHeadersOf<'putPrinter'>): { create: true } | { ifMatch: string } | undefined {
  const ifMatch = headers['if-match']?.trim();
  const ifNoneMatch = headers['if-none-match']?.trim();
  if (ifMatch && ifNoneMatch) throw new HttpProblem('invalid-request', 'Send If-Match (to replace) or If-None-Match: * (to create), not both.');
  if (ifNoneMatch === '*') return { create: true };
  return ifMatch ? { ifMatch } : undefined;
}

/** Whether an If-Match value (a list of entity tags, or `*`) matches the current strong ETag. */
export function ifMatchHolds(header: string, etag: string): boolean {
  if (header === '*') return true;
  // Strong comparison (RFC 9110 13.1.1): a weak tag never matches.
  return header.split(',').some((t) => t.trim() === etag);
}
