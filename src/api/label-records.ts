/**
 * One `labelFor(kind, id)` turns a label request's id into the LabelRecord the
 * engine draws: what each label kind names and where its code points come from
 * the kinds table (src/records/kinds.ts), so a new kind is an entry there plus
 * its operation in the spec.
 */
import type { LabelRecord } from '../labels/index.js';
import { formatAssetId, LABEL_KIND_FACTS, parseAssetId, type InventoryRecord, type LabelKind, type PlacedRecord, type RecordStore } from '../records/index.js';
import { LRUCache } from 'lru-cache';
import { HttpProblem } from './problems.js';

/** The record a label's id names, and its location path, in one store call (throws a problem for a malformed asset id). */
async function findFor(kind: LabelKind, records: RecordStore, id: string): Promise<(PlacedRecord & { assetId?: number }) | undefined> {
  const facts = LABEL_KIND_FACTS[kind];
  if (!facts.byAssetId) return records.getWithPath({ kind: facts.recordKind, id });
  const assetId = parseAssetId(id);
  if (assetId === undefined) {
    if (/^[0-]+$/.test(id)) return undefined; // asset 0 does not exist
    throw new HttpProblem('invalid-request', `Asset id ${id} has more than 12 digits.`);
  }
  const found = await records.getWithPath({ assetId });
  return found && { ...found, assetId };
}

/** Path of the record in the inventory front-end, after the public base URL. */
function frontEndPath(kind: LabelKind, record: InventoryRecord, assetId?: number): string {
  const facts = LABEL_KIND_FACTS[kind];
  return `/${facts.frontEndSegment}/${facts.byAssetId ? formatAssetId(assetId!) : encodeURIComponent(record.id)}`;
}

/** The label operation's path for a record id (or, for a label by asset id, the asset id as `000-001`). */
export function labelPath(kind: LabelKind, id: string): string {
  return `/v1/labelmaker/${LABEL_KIND_FACTS[kind].pathSegment}/${encodeURIComponent(id)}`;
}

export interface FoundLabel {
  record: LabelRecord;
  /** What identifies the record to a print job (command placeholders): kind, id, name, assetId, url. */
  fields: Record<string, string>;
}

export type LabelFor = (kind: LabelKind, id: string) => Promise<FoundLabel>;

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
  const lookUp = async (kind: LabelKind, id: string) => {
    const found = await findFor(kind, records, id);
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
export function labelOf(kind: LabelKind, record: InventoryRecord, path: readonly string[], publicBaseUrl: string, assetId?: number): FoundLabel {
  const url = `${publicBaseUrl}${frontEndPath(kind, record, assetId)}`;
  const fields: Record<string, string> = { kind, id: record.id, name: record.name, url };
  if (assetId !== undefined) fields.assetId = formatAssetId(assetId);
  const custom = record.fields && Object.keys(record.fields).length > 0 ? { fields: record.fields } : {};
  return { record: { kind, id: record.id, name: record.name, path, assetId, url, description: record.description, ...custom }, fields };
}
