/**
 * A selection (spec: Selection) turned into the labels it stands for, shared by
 * sheets and print batches. Bounded (MAX_LABELS, copies included) and checked
 * whole before anything is drawn or printed: every listed record that does not
 * exist is named in one 422.
 */
import type { components } from '../../generated/openapi.js';
import { LABEL_KIND_FACTS, parseAssetId, type LabelKind, type RecordQuery, type RecordSearch, type RecordSortKey, type RecordStore } from '../records/index.js';
import { labelOf, type FoundLabel, type LabelFor } from './label-records.js';
import { HttpProblem } from './problems.js';

export type Selection = components['schemas']['Selection'];
type SelectedRecord = components['schemas']['SelectedRecord'];

/** Labels per request, copies included (documented in the spec's Selection). */
export const MAX_LABELS = 1000;
/** Missing records named in the detail text (all of them are in `missing`). */
const NAMED_IN_DETAIL = 20;
const PAGE = 200;

/** A selection's labels in order; `more`: a selection with `limit` had more records than it took. */
export interface SelectedLabels {
  found: FoundLabel[];
  more: boolean;
}

export type SelectLabels = (selection: Selection, copies: number) => Promise<SelectedLabels>;

export interface SelectionDeps {
  records: RecordStore;
  search: RecordSearch;
  labelFor: LabelFor;
  publicBaseUrl: string;
}

export function selectLabels({ records, search, labelFor, publicBaseUrl }: SelectionDeps): SelectLabels {
  const bound = (count: number, copies: number, what: string) => {
    if (count * copies > MAX_LABELS) {
      throw new HttpProblem('invalid-request', `The selection makes ${count * copies} labels (${what} x ${copies} copies); at most ${MAX_LABELS} per request.`);
    }
  };

  /**
   * Every record of a search after `first`, page by page, stopping as soon as the bound is
   * passed; with `limit`, the first `limit` records only (one more is read to know of `more`).
   * `kind` undefined: each record gets its own kind's label.
   */
  const searchAll = async (query: Omit<RecordQuery, 'limit' | 'after'>, kind: LabelKind | undefined, copies: number, first: FoundLabel[] = [], limit?: number): Promise<SelectedLabels> => {
    const labels: FoundLabel[] = [...first];
    let after: RecordSortKey | undefined;
    do {
      const page = await search.find({ ...query, limit: limit === undefined ? PAGE : Math.min(PAGE, limit + 1 - labels.length), after });
      for (const r of page.records) {
        if (labels.length === limit) return { found: labels, more: true };
        const k = kind ?? r.kind;
        labels.push(labelOf(k, r, r.path, publicBaseUrl, LABEL_KIND_FACTS[k].byAssetId ? r.assetId ?? undefined : undefined));
      }
      if (labels.length * copies > MAX_LABELS) {
        throw new HttpProblem('invalid-request', `The selection has at least ${labels.length} records (x ${copies} copies): more than ${MAX_LABELS} labels, the most per request.`);
      }
      after = page.next;
    } while (after);
    if (labels.length === 0) {
      const state = query.labels === 'stale' ? ' (no printed label is out of date)' : query.labels === 'neverPrinted' ? ' (every record has a printed label)' : '';
      throw new HttpProblem('invalid-request', `The selection has no records${state}: there is nothing to label.`);
    }
    return { found: labels, more: false };
  };

  return async (selection, copies) => {
    if ('records' in selection) {
      bound(selection.records.length, copies, `${selection.records.length} records`);
      const labels: FoundLabel[] = [];
      const missing: SelectedRecord[] = [];
      for (const [i, entry] of selection.records.entries()) {
        if (LABEL_KIND_FACTS[entry.kind].byAssetId && !/^[0-9]+(-[0-9]+)*$/.test(entry.id)) {
          throw new HttpProblem('invalid-request', `selection records[${i}]: ${entry.id} is not an asset id (digits, optionally grouped with dashes).`);
        }
        try {
          labels.push(await labelFor(entry.kind, entry.id));
        } catch (err) {
          if (!(err instanceof HttpProblem) || err.problem !== 'not-found') throw err;
          missing.push({ kind: entry.kind, id: entry.id });
        }
      }
      if (missing.length) throw recordsNotFound(missing);
      return { found: labels, more: false };
    }
    if ('location' in selection) {
      const kind = selection.kind ?? 'item';
      if (selection.includeSelf && kind !== 'location') {
        throw new HttpProblem('invalid-request', `selection includeSelf adds the location's own label: it takes kind location, not ${kind}.`);
      }
      if (selection.includeSelf && selection.labels) {
        throw new HttpProblem('invalid-request', `selection includeSelf adds the location's own label whatever its state: it does not go with labels ${selection.labels}.`);
      }
      if (!(await records.getLocation(selection.location))) throw recordsNotFound([{ kind: 'location', id: selection.location }]);
      // The location's own label first, then what is in it (counted against the same bound).
      const self = selection.includeSelf ? [await labelFor('location', selection.location)] : [];
      return searchAll({ parentId: selection.location, descendants: selection.descendants ?? false, kind, labels: selection.labels }, kind, copies, self);
    }
    if ('labels' in selection) {
      if (selection.limit !== undefined) bound(selection.limit, copies, `limit ${selection.limit}`);
      return searchAll({ labels: selection.labels, kind: selection.kind }, selection.kind, copies, [], selection.limit);
    }
    const from = parseAssetId(selection.assetIdFrom);
    const to = parseAssetId(selection.assetIdTo);
    if (from === undefined || to === undefined) throw new HttpProblem('invalid-request', 'selection: asset ids have at most 12 digits, and asset 0 does not exist.');
    if (from > to) throw new HttpProblem('invalid-request', `selection: assetIdFrom ${selection.assetIdFrom} is after assetIdTo ${selection.assetIdTo}.`);
    return searchAll({ assetIdFrom: from, assetIdTo: to, kind: 'asset' }, 'asset', copies);
  };
}

function recordsNotFound(missing: SelectedRecord[]): HttpProblem {
  const named = missing.slice(0, NAMED_IN_DETAIL).map((m) => `${m.kind} ${m.id}`).join(', ');
  const more = missing.length > NAMED_IN_DETAIL ? ` and ${missing.length - NAMED_IN_DETAIL} more (see missing)` : '';
  const what = missing.length === 1 ? '1 record of the selection does not exist' : `${missing.length} records of the selection do not exist`;
  return new HttpProblem('records-not-found', `${what}: ${named}${more}.`, {}, { missing });
}
