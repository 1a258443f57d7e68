/**
 * listRecords: finding what to label. Thin: turn the query into store filters,
 * page through the store's search, and add each record's label URLs.
 */
import type { components } from '../../generated/openapi.js';
import { checkFieldValues, FieldError, formatAssetId, LABEL_KIND_FACTS, labelKindsOf, LIMITS, parseAssetId, RECORD_KIND_FACTS, type FieldDefinition, type FoundRecord, type RecordQuery, type RecordSearch } from '../records/index.js';
import { labelPath } from './label-records.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';

type ApiRecord = components['schemas']['InventoryRecord'];

export const DEFAULT_PAGE_SIZE = 50;

export function recordHandlers(search: RecordSearch, catalogue: readonly FieldDefinition[] = []): Pick<Handlers, 'listRecords'> {
  return {
    async listRecords(c, _req, res) {
      const q = c.request.query;
      if (q.topLevel && q.parent !== undefined) throw invalid('topLevel and parent exclude each other: top-level records have no parent.');
      if (q.descendants && q.parent === undefined) throw invalid('descendants needs parent: the location whose descendants to list.');
      const exact = assetNumber('assetId', q.assetId);
      if (exact !== undefined && (q.assetIdFrom !== undefined || q.assetIdTo !== undefined)) {
        throw invalid('assetId names one asset; use it without assetIdFrom and assetIdTo.');
      }
      const assetIdFrom = exact ?? assetNumber('assetIdFrom', q.assetIdFrom);
      const assetIdTo = exact ?? assetNumber('assetIdTo', q.assetIdTo);
      if (assetIdFrom !== undefined && assetIdTo !== undefined && assetIdFrom > assetIdTo) throw invalid('assetIdFrom is after assetIdTo.');
      if (q.kind && !RECORD_KIND_FACTS[LABEL_KIND_FACTS[q.kind].recordKind].assetIds && assetIdFrom !== undefined) {
        throw invalid(`${q.kind}s have no asset ids: use kind=item or kind=asset with asset-id filters.`);
      }

      const filters: Omit<RecordQuery, 'limit' | 'after'> = {
        text: q.q,
        kind: q.kind,
        parentId: q.parent,
        descendants: q.descendants || undefined,
        topLevel: q.topLevel || undefined,
        assetIdFrom,
        assetIdTo,
        field: fieldFilter(q, catalogue),
        labels: q.labels,
      };
      const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, filters);
      const page = await search.find({ ...filters, limit: q.limit ?? DEFAULT_PAGE_SIZE, after });
      sendJson(res, 200, {
        records: page.records.map(toApiRecord),
        nextCursor: page.next ? encodeCursor(page.next, filters) : null,
      } satisfies components['schemas']['RecordPage']);
    },
  };
}

/**
 * The field filter (field with fieldValue, or fieldFrom and fieldTo), its values checked as a
 * record's would be (checkFieldValues): a number is a number, a date an ISO date.
 */
function fieldFilter(q: { field?: string; fieldValue?: string; fieldFrom?: string; fieldTo?: string }, catalogue: readonly FieldDefinition[]): RecordQuery['field'] {
  const given = q.fieldValue !== undefined || q.fieldFrom !== undefined || q.fieldTo !== undefined;
  if (q.field === undefined) {
    if (given) throw invalid('fieldValue, fieldFrom and fieldTo need field: the custom field they filter by.');
    return undefined;
  }
  const def = catalogue.find((f) => f.name === q.field);
  if (!def) {
    throw invalid(`query parameter field: no custom field is named ${q.field} (${catalogue.length === 0 ? 'none are declared' : `declared: ${catalogue.map((f) => f.name).join(', ')}`}; see listFields).`);
  }
  if (!given) throw invalid(`field needs fieldValue, or fieldFrom and/or fieldTo: what to look for in ${def.name}.`);
  if (q.fieldValue !== undefined && (q.fieldFrom !== undefined || q.fieldTo !== undefined)) throw invalid('fieldValue names one value; use it without fieldFrom and fieldTo.');
  const { min: _min, max: _max, ...unbounded } = def; // a filter may look outside the bounds records must keep
  const checked = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    try {
      return checkFieldValues({ [def.name]: text }, [unbounded])[def.name];
    } catch (err) {
      if (err instanceof FieldError) throw invalid(`query parameter ${name}: ${err.message.replace(/^field \w+: /, '')} (${def.name} is a ${def.type} field).`);
      throw err;
    }
  };
  const from = checked('fieldFrom', q.fieldFrom);
  const to = checked('fieldTo', q.fieldTo);
  if (from !== undefined && to !== undefined && from > to) throw invalid('fieldFrom is after fieldTo.');
  return { name: def.name, numeric: def.type === 'number', value: checked('fieldValue', q.fieldValue), from, to };
}

function toApiRecord(r: FoundRecord): ApiRecord {
  const assetId = r.assetId === null ? null : formatAssetId(r.assetId);
  const labels: ApiRecord['labels'] = Object.fromEntries(labelKindsOf(r).map((kind) => [kind, labelPath(kind, LABEL_KIND_FACTS[kind].byAssetId ? assetId! : r.id)]));
  return {
    kind: r.kind,
    id: r.id,
    name: r.name,
    description: clipDescription(r.description),
    parentId: r.parentId,
    path: r.path,
    pathIds: r.pathIds,
    assetId,
    childCount: r.childCount,
    updatedAt: r.updatedAt,
    fields: r.fields ?? {},
    labels,
  };
}

/**
 * Imports keep descriptions to LIMITS.maxDescriptionLength characters (the spec's maxLength);
 * records stored before that limit existed are shortened here (the query reads one more
 * character than the limit, so a long one is never loaded whole).
 */
function clipDescription(text: string): string {
  const chars = Array.from(text);
  return chars.length <= LIMITS.maxDescriptionLength ? text : `${chars.slice(0, LIMITS.maxDescriptionLength - 1).join('')}…`;
}

function assetNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = parseAssetId(text);
  if (n === undefined) throw invalid(`query parameter ${name}: '${text}' is not an asset id (1 to 12 digits, not 0).`);
  return n;
}

function invalid(detail: string): HttpProblem {
  return new HttpProblem('invalid-request', detail);
}
