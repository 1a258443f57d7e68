/**
 * Generated import files for benchmarks and scale tests: a realistic inventory of
 * `records` rows (UUID ids, as Homebox uses; names in several scripts; about one
 * location per 50 records, in an 8-ary tree under one existing site location;
 * half the items with asset ids). Deterministic for a given size, and written as a
 * stream, so a million rows never sit in memory.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** The location every generated location hangs under: import it (or SITE_CSV) first. */
export const SITE_ID = '0b0c9a52-3f67-4d61-9a2e-5c1f00000000';
export const SITE_CSV = `kind,id,name,description,parent_id,asset_id\nlocation,${SITE_ID},Main site,,,\n`;

const NAMES = ['Akku-Bohrschrauber', 'Cordless drill', 'Κατσαβίδι', '電動ドリル', 'مفك براغي', 'Toolbox, red', 'Label printer "QL"', 'Щётка'];

export interface GeneratedInventory {
  locations: number;
  items: number;
  /** The id of location `i` (0-based) or item `i`. */
  locationId(i: number): string;
  itemId(i: number): string;
  /** Items with an even index have asset id `index / 2 + 1`. */
  assetIdOf(item: number): number | null;
}

export function inventory(records: number): GeneratedInventory {
  const locations = Math.max(4, Math.round(records / 50));
  return {
    locations,
    items: records - locations,
    locationId: (i) => uuid(1, i),
    itemId: (i) => uuid(2, i),
    assetIdOf: (i) => (i % 2 === 0 ? i / 2 + 1 : null),
  };
}

/** Writes the inventory as CSV (or JSON) to `path`. */
export async function writeInventory(path: string, records: number, format: 'csv' | 'json' = 'csv'): Promise<GeneratedInventory> {
  const inv = inventory(records);
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const rows: string[] = [];
  let first = true; // JSON: a separator goes before every batch but the first (a batch may be the last one)
  const flush = async (_final = false) => {
    if (rows.length === 0) return;
    await write(format === 'csv' ? rows.join('') : (first ? '' : ',\n') + rows.join(',\n'));
    first = false;
    rows.length = 0;
  };
  await write(format === 'csv' ? 'kind,id,name,description,parent_id,asset_id\n' : '[\n');
  // Locations: parents before children.
  for (let i = 0; i < inv.locations; i++) {
    const parent = i < 8 ? SITE_ID : inv.locationId(Math.floor(i / 8) - 1); // an 8-ary tree
    rows.push(row(format, 'location', inv.locationId(i), `Shelf ${i}`, i % 3 === 0 ? 'Aisle 4, left side' : '', parent, null));
    if (rows.length >= 1000) await flush();
  }
  for (let i = 0; i < inv.items; i++) {
    const name = `${NAMES[i % NAMES.length]} ${i}`;
    rows.push(row(format, 'item', inv.itemId(i), name, i % 4 === 0 ? 'Bought 2024, with two batteries\nand a charger' : '', inv.locationId(i % inv.locations), inv.assetIdOf(i)));
    if (rows.length >= 1000) await flush();
  }
  await flush(true);
  if (format === 'json') await write('\n]\n');
  out.end();
  await once(out, 'finish');
  return inv;
}

function row(format: 'csv' | 'json', kind: string, id: string, name: string, description: string, parent: string, assetId: number | null): string {
  if (format === 'json') return JSON.stringify({ kind, id, name, description, parentId: parent, assetId });
  return `${kind},${id},${csvField(name)},${csvField(description)},${parent},${assetId ?? ''}\n`;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A UUID-shaped id, unique per (kind, index), spread like random UUIDs (so B-tree inserts land all over). */
function uuid(kind: number, i: number): string {
  let h = (Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(kind, 0x85ebca77)) >>> 0;
  const parts: string[] = [];
  for (let k = 0; k < 4; k++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = (h ^ (h >>> 12)) >>> 0;
    parts.push(h.toString(16).padStart(8, '0'));
  }
  const hex = parts.join('');
  // The last 8 digits carry the index itself: ids stay unique whatever the hash does.
  const tail = (kind * 0x1000000 + i).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${tail}`;
}
