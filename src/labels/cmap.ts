/**
 * Which code points a TrueType/OpenType font has glyphs for, read from its
 * `cmap` table (formats 4 and 12, the Unicode subtables every font we bundle
 * has). Written here rather than taken from opentype.js/fontkit because we
 * need only this table, for ~30 MB of fonts at start-up: those libraries parse
 * the whole font (outlines of 30k CJK glyphs) to answer it.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Code points of a font file, reading only its table directory and its cmap
 * table (a few KB to a few hundred KB) rather than the whole file: every
 * thread that loads the engine asks this of ~30 MB of fonts, and whole-file
 * reads left that much in transient buffers per thread, which also raised
 * glibc's mmap threshold for the rest of the process's life.
 */
export function cmapCoverageOfFile(path: string, into: Uint8Array = new Uint8Array(0x110000 >> 3)): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const read = (position: number, length: number): Buffer => {
      const buf = Buffer.alloc(length);
      if (readSync(fd, buf, 0, length, position) !== length) throw new Error(`${path}: truncated font`);
      return buf;
    };
    const numTables = read(4, 2).readUInt16BE(0);
    const dir = read(12, 16 * numTables);
    for (let i = 0; i < numTables; i++) {
      if (dir.toString('latin1', 16 * i, 16 * i + 4) !== 'cmap') continue;
      return tableCoverage(read(dir.readUInt32BE(16 * i + 8), dir.readUInt32BE(16 * i + 12)), into);
    }
    throw new Error('font has no cmap table');
  } finally {
    closeSync(fd);
  }
}

/** Code points a cmap table (its own bytes) maps to a glyph other than .notdef, as a bit set over U+0000..U+10FFFF. */
function tableCoverage(table: Buffer, into: Uint8Array): Uint8Array {
  // Prefer the full-repertoire subtable (format 12), else the BMP one (format 4).
  let best = -1;
  let bestFormat = 0;
  const n = table.readUInt16BE(2);
  for (let i = 0; i < n; i++) {
    const platform = table.readUInt16BE(4 + 8 * i);
    const encoding = table.readUInt16BE(6 + 8 * i);
    const offset = table.readUInt32BE(8 + 8 * i);
    const format = table.readUInt16BE(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (unicode && (format === 12 || (format === 4 && bestFormat !== 12))) {
      best = offset;
      bestFormat = format;
    }
  }
  if (best < 0) throw new Error('font has no Unicode cmap subtable');
  const set = (cp: number) => void (into[cp >> 3]! |= 1 << (cp & 7));
  if (bestFormat === 12) {
    const groups = table.readUInt32BE(best + 12);
    for (let g = 0; g < groups; g++) {
      const at = best + 16 + 12 * g;
      const start = table.readUInt32BE(at);
      const end = Math.min(table.readUInt32BE(at + 4), 0x10ffff);
      const glyph = table.readUInt32BE(at + 8);
      for (let cp = start; cp <= end; cp++) if (glyph + (cp - start) !== 0) set(cp);
    }
    return into;
  }
  const segX2 = table.readUInt16BE(best + 6);
  const ends = best + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  for (let s = 0; s < segX2; s += 2) {
    const end = table.readUInt16BE(ends + s);
    const start = table.readUInt16BE(starts + s);
    const delta = table.readInt16BE(deltas + s);
    const ro = table.readUInt16BE(rangeOffsets + s);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let glyph: number;
      if (ro === 0) glyph = (cp + delta) & 0xffff;
      else {
        const g = table.readUInt16BE(rangeOffsets + s + ro + 2 * (cp - start));
        glyph = g === 0 ? 0 : (g + delta) & 0xffff;
      }
      if (glyph !== 0) set(cp);
    }
  }
  return into;
}

export function covers(set: Uint8Array, cp: number): boolean {
  return (set[cp >> 3]! & (1 << (cp & 7))) !== 0;
}
