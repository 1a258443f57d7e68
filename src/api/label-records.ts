/**
 * Record kind as data: one table says how each label kind finds its record
 * and which public URL its code carries, and one `labelFor(kind, id)` turns a
 * request's id into the LabelRecord the engine draws. A new kind is one entry
 * here plus its operation in the spec.
 */
import type { LabelRecord, RecordKind } from '../labels/index.js';
import { formatAssetId, parseAssetId, type InventoryRecord, type PlacedRecord, type RecordStore } from '../records/index.js';
import { LRUCache } from 'lru-cache';
import { HttpProblem } from './problems.js';

interface KindEntry {
  /** Finds the record and its location path for the id in the request path, in one store call (throws a problem for a malformed id). */
  find(records: RecordStore, id: string): Promise<(PlacedRecord & { assetId?: number }) | undefined>;
  /** Path of the record in the inventory front-end, after the public base URL. */
  urlPath(record: InventoryRecord, assetId?: number): string;
}

const KINDS: Record<RecordKind, KindEntry> = {
  location: {
    find: (records, id) => records.getWithPath({ kind: 'location', id }),
    urlPath: (r) => `/location/${encodeURIComponent(r.id)}`,
  },
  item: {
    find: (records, id) => records.getWithPath({ kind: 'item', id }),
    urlPath: (r) => `/item/${encodeURIComponent(r.id)}`,
  },
  asset: {
    async find(records, id) {
      const assetId = parseAssetId(id);
      if (assetId === undefined) {
        if (/^[0-]+$/.test(id)) return undefined; // asset 0 does not exist
        throw new HttpProblem('invalid-request', `Asset id ${id} has more than 12 digits.`);
      }
      const found = await records.getWithPath({ assetId });
      return found && { ...found, assetId };
    },
    urlPath: (_r, assetId) => `/a/${formatAssetId(assetId!)}`,
  },
};

export interface FoundLabel {
  record: LabelRecord;
  /** What identifies the record to a print job (command placeholders): kind, id, name, assetId, url. */
  fields: Record<string, string>;
}

export type LabelFor = (kind: RecordKind, id: string) => Promise<FoundLabel>;

/**
 * Found labels kept between record changes (stores with a changeStamp only). The memo
 * serves repeats, and the repeats worth keeping are about as many as the label cache
 * holds (about 3,300 labels of 62x29 mm at the default 8 MB): 4,000. Each entry is a few
 * hundred bytes of strings and objects on the main heap; with 10,000 a distinct-label
 * load left the heap about 5 MB larger and the soak in `npm run bench:http -- --only
 * distinct,soak` peaked at 245-256 MB against 231-246 MB (two paired runs, 27 November).
 */
const MEMO_ENTRIES = 4_000;

export function labelRecords(records: RecordStore, publicBaseUrl: string): LabelFor {
  const lookUp = async (kind: RecordKind, id: string) => {
    const found = await KINDS[kind].find(records, id);
    if (!found) throw new HttpProblem('not-found', `No ${kind} has the id ${id}.`);
    const { record, path, assetId } = found;
    return labelOf(kind, record, path, publicBaseUrl, assetId);
  };
  if (!records.changeStamp) return lookUp;

  // A label's record and location path cost two SQLite statements, most of a cached
  // label's store time (bench:http); between two changes to the records (any change: a
  // location's rename shows on the labels below it) the answer is the same.
  const stampOf = records.changeStamp.bind(records);
  const memo = new LRUCache<string, FoundLabel>({ max: MEMO_ENTRIES });
  let memoStamp: number | undefined;
  return async (kind, id) => {
    const stamp = stampOf();
    if (stamp !== memoStamp) {
      memo.clear();
      memoStamp = stamp;
    }
    const key = `${kind}/${id}`;
    const kept = memo.get(key);
    if (kept) return kept;
    const found = await lookUp(kind, id);
    // Looked up after the stamp was read: at least as new as it. A change since moves the stamp, which clears the memo.
    if (memoStamp === stamp) memo.set(key, found);
    return found;
  };
}

/** The label of a record whose location path is known (a search result carries it). */
export function labelOf(kind: RecordKind, record: InventoryRecord, path: readonly string[], publicBaseUrl: string, assetId?: number): FoundLabel {
  const url = `${publicBaseUrl}${KINDS[kind].urlPath(record, assetId)}`;
  const fields: Record<string, string> = { kind, id: record.id, name: record.name, url };
  if (assetId !== undefined) fields.assetId = formatAssetId(assetId);
  return { record: { kind, id: record.id, name: record.name, path, assetId, url, description: record.description }, fields };
}
