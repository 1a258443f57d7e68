/**
 * The words for what a record is and which label it gets, and everything the service
 * knows about each: the stores, the label engine, the API (its router, fast lane,
 * searches, selections, print jobs) and the studio read this table instead of spelling
 * kinds out. A new label kind is an entry in LABEL_KIND_FACTS (and its operation in the
 * spec, whose LabelKind enum the compiler then holds this table to).
 *
 * Types only from the spec, no runtime imports: src/labels and the studio import it too.
 */
import type { components } from '../../generated/openapi.js';

/** What a stored record is (the spec's InventoryRecord.kind): a location, or an item placed in one. */
export type RecordKind = components['schemas']['InventoryRecord']['kind'];

/**
 * Which label a record gets (the spec's LabelKind): a location's, an item's, or an
 * asset's, the label of an item that has an asset id, named and drawn by that id.
 */
export type LabelKind = components['schemas']['LabelKind'];

export interface RecordKindFacts {
  /** Records of this kind may carry an asset id (InventoryRecord.assetId). */
  assetIds: boolean;
  /** Records of this kind hold other records (their parentId names it; InventoryRecord.childCount counts them). */
  holdsRecords: boolean;
}

export const RECORD_KIND_FACTS: Readonly<Record<RecordKind, RecordKindFacts>> = {
  location: { assetIds: false, holdsRecords: true },
  item: { assetIds: true, holdsRecords: false },
};

export const RECORD_KINDS = Object.keys(RECORD_KIND_FACTS) as readonly RecordKind[];

export interface LabelKindFacts {
  /** The kind of record the label is of. */
  recordKind: RecordKind;
  /**
   * The label names its record by the record's asset id, not its id: in its operation's
   * path, its print job's `record`, its job title and its front-end URL. Only records
   * that have an asset id have such a label.
   */
  byAssetId: boolean;
  /** Its label operation's path: /v1/labelmaker/{pathSegment}/{id}. */
  pathSegment: string;
  /** Its label operation in the spec. */
  operationId: 'getLocationLabel' | 'getItemLabel' | 'getAssetLabel';
  /** The record's page in the inventory front-end (Homebox's URLs): {publicBaseUrl}/{frontEndSegment}/{id or asset id}. */
  frontEndSegment: string;
  /** What a person calls the label (the studio's choice of label). */
  title: string;
}

export const LABEL_KIND_FACTS: Readonly<Record<LabelKind, LabelKindFacts>> = {
  location: { recordKind: 'location', byAssetId: false, pathSegment: 'location', operationId: 'getLocationLabel', frontEndSegment: 'location', title: 'Location label' },
  item: { recordKind: 'item', byAssetId: false, pathSegment: 'item', operationId: 'getItemLabel', frontEndSegment: 'item', title: 'Item label' },
  asset: { recordKind: 'item', byAssetId: true, pathSegment: 'assets', operationId: 'getAssetLabel', frontEndSegment: 'a', title: 'Asset label' },
};

export const LABEL_KINDS = Object.keys(LABEL_KIND_FACTS) as readonly LabelKind[];

export function isRecordKind(word: unknown): word is RecordKind {
  return (RECORD_KINDS as readonly unknown[]).includes(word);
}

export function isLabelKind(word: unknown): word is LabelKind {
  return (LABEL_KINDS as readonly unknown[]).includes(word);
}

/** The labels a record has: a location its own; an item its own, and an asset label when it has an asset id. */
export function labelKindsOf(record: { kind: RecordKind; assetId: number | null }): LabelKind[] {
  return LABEL_KINDS.filter((k) => LABEL_KIND_FACTS[k].recordKind === record.kind && (!LABEL_KIND_FACTS[k].byAssetId || record.assetId !== null));
}
