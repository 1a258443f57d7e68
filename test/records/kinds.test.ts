import { describe, expect, it } from 'vitest';
import { isLabelKind, isRecordKind, LABEL_KIND_FACTS, LABEL_KINDS, labelKindsOf, RECORD_KINDS } from '../../src/records/kinds.js';
import { spec, type Json } from '../helpers/spec.js';

/** operationId → path of every GET operation in the spec. */
const pathOf = new Map<string, string>(
  Object.entries<Json>(spec.paths).flatMap(([path, item]) => (item.get?.operationId ? [[item.get.operationId as string, path]] : [])),
);

describe('the kinds table agrees with the spec', () => {
  it('has one entry per LabelKind and per InventoryRecord kind', () => {
    expect([...LABEL_KINDS].sort()).toEqual([...spec.components.schemas.LabelKind.enum].sort());
    expect([...RECORD_KINDS].sort()).toEqual([...spec.components.schemas.InventoryRecord.properties.kind.enum].sort());
  });

  it.each(LABEL_KINDS)('%s: its operation is GET /v1/labelmaker/{pathSegment}/{id}', (kind) => {
    const { operationId, pathSegment } = LABEL_KIND_FACTS[kind];
    expect(pathOf.get(operationId)).toBe(`/v1/labelmaker/${pathSegment}/{id}`);
  });

  it("names the members of the spec's LabelUrls (a record's label URLs)", () => {
    const urls = spec.components.schemas.LabelUrls.properties;
    expect(Object.keys(urls).sort()).toEqual([...LABEL_KINDS].sort());
    for (const kind of LABEL_KINDS) expect(urls[kind].pattern).toBe(`^/v1/labelmaker/${LABEL_KIND_FACTS[kind].pathSegment}/`);
  });
});

describe('labelKindsOf', () => {
  it('gives a location its label, an item its own and, with an asset id, an asset label', () => {
    expect(labelKindsOf({ kind: 'location', assetId: null })).toEqual(['location']);
    expect(labelKindsOf({ kind: 'item', assetId: null })).toEqual(['item']);
    expect(labelKindsOf({ kind: 'item', assetId: 7 })).toEqual(['item', 'asset']);
  });
});

describe('kind guards', () => {
  it('accept the kinds and nothing else', () => {
    expect(['location', 'item', 'asset', 'assets', 'Item', '', undefined].map(isLabelKind)).toEqual([true, true, true, false, false, false, false]);
    expect(['location', 'item', 'asset', 'toString', null].map(isRecordKind)).toEqual([true, true, false, false, false]);
  });
});
