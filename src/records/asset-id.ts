/**
 * Asset numbers are plain positive integers in storage; people see and type them
 * as `000-001`. Pure helpers, shared by the importer, the stores' callers and labels.
 */

/** Largest asset id: 12 digits, still far below Number.MAX_SAFE_INTEGER. */
export const MAX_ASSET_ID = 999_999_999_999;

/** Digits, optionally grouped by single dashes (`000-001`, `000001`, `1`). */
const ASSET_ID_TEXT = /^\d+(?:-\d+)*$/;

/** Parses `000-001`, `000001` or `1`; undefined for anything else, for 0 and for more than 12 digits. */
export function parseAssetId(text: string): number | undefined {
  const trimmed = text.trim();
  if (!ASSET_ID_TEXT.test(trimmed)) return undefined;
  const digits = trimmed.replaceAll('-', '');
  if (digits.length > 12) return undefined;
  const n = Number(digits);
  return n >= 1 ? n : undefined;
}

/** True for integers usable as asset ids (1..MAX_ASSET_ID). */
export function isAssetId(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_ASSET_ID;
}

/** 1 → `000-001`, 1234567 → `001-234-567`: at least 6 digits, dash-grouped in threes. */
export function formatAssetId(n: number): string {
  if (!isAssetId(n)) throw new RangeError(`not an asset id: ${n}`);
  let digits = String(n).padStart(6, '0');
  digits = digits.padStart(Math.ceil(digits.length / 3) * 3, '0');
  return digits.match(/\d{3}/g)!.join('-');
}
