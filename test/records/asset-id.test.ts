import { describe, expect, it } from 'vitest';
import { MAX_ASSET_ID, formatAssetId, parseAssetId } from '../../src/records/asset-id.js';

describe('parseAssetId', () => {
  it.each([
    ['000-001', 1],
    ['000001', 1],
    ['1', 1],
    [' 42 ', 42],
    ['001-234-567', 1_234_567],
    ['1234567', 1_234_567],
    ['12-34', 1234],
    ['999-999-999-999', MAX_ASSET_ID],
    ['000000000007', 7],
  ])('%j → %d', (text, n) => {
    expect(parseAssetId(text)).toBe(n);
  });

  it.each(['', '0', '000-000', '-1', '1-', '-', '1--2', 'a1', '1.5', '1e3', '1 2', '+1', '0000000000001', '1000000000000', '１'])('rejects %j', (text) => {
    expect(parseAssetId(text)).toBeUndefined();
  });
});

describe('formatAssetId', () => {
  it.each([
    [1, '000-001'],
    [999_999, '999-999'],
    [1_000_000, '001-000-000'],
    [1_234_567, '001-234-567'],
    [12_345_678, '012-345-678'],
    [MAX_ASSET_ID, '999-999-999-999'],
  ])('%d → %s', (n, text) => {
    expect(formatAssetId(n)).toBe(text);
  });

  it.each([0, -1, 1.5, MAX_ASSET_ID + 1, Number.NaN])('rejects %d', (n) => {
    expect(() => formatAssetId(n)).toThrow(RangeError);
  });

  it('round-trips through parseAssetId', () => {
    for (const n of [1, 9, 10, 99, 100, 999, 1000, 65_535, 999_999, 1_000_000, 123_456_789_012]) {
      expect(parseAssetId(formatAssetId(n))).toBe(n);
    }
  });
});
