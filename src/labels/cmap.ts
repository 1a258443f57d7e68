/**
 * Which code points a TrueType/OpenType font has glyphs for, read from its
 * `cmap` table (formats 4 and 12, the Unicode subtables every font we bundle
 * has). Written here rather than taken from opentype.js/fontkit because we
 * need only this table, for ~30 MB of fonts at start-up: those libraries parse
 * the whole font (outlines of 30k CJK glyphs) to answer it.
 */

/** Code points a font maps to a glyph other than .notdef, as a bit set over U+0000..U+10FFFF. */
export function cmapCoverage(font: Buffer, into: Uint8Array = new Uint8Array(0x110000 >> 3)): Uint8Array {
  const numTables = font.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + 16 * i;
    if (font.toString('latin1', rec, rec + 4) === 'cmap') cmap = font.readUInt32BE(rec + 8);
  }
  if (cmap < 0) throw new Error('font has no cmap table');
  // Prefer the full-repertoire subtable (format 12), else the BMP one (format 4).
  let best = -1;
  let bestFormat = 0;
  const n = font.readUInt16BE(cmap + 2);
  for (let i = 0; i < n; i++) {
    const platform = font.readUInt16BE(cmap + 4 + 8 * i);
    const encoding = font.readUInt16BE(cmap + 6 + 8 * i);
    const offset = cmap + font.readUInt32BE(cmap + 8 + 8 * i);
    const format = font.readUInt16BE(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (unicode && (format === 12 || (format === 4 && bestFormat !== 12))) {
      best = offset;
      bestFormat = format;
    }
  }
  if (best < 0) throw new Error('font has no Unicode cmap subtable');
  const set = (cp: number) => void (into[cp >> 3]! |= 1 << (cp & 7));
  if (bestFormat === 12) {
    const groups = font.readUInt32BE(best + 12);
    for (let g = 0; g < groups; g++) {
      const at = best + 16 + 12 * g;
      const start = font.readUInt32BE(at);
      const end = Math.min(font.readUInt32BE(at + 4), 0x10ffff);
      const glyph = font.readUInt32BE(at + 8);
      for (let cp = start; cp <= end; cp++) if (glyph + (cp - start) !== 0) set(cp);
    }
    return into;
  }
  const segX2 = font.readUInt16BE(best + 6);
  const ends = best + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  for (let s = 0; s < segX2; s += 2) {
    const end = font.readUInt16BE(ends + s);
    const start = font.readUInt16BE(starts + s);
    const delta = font.readInt16BE(deltas + s);
    const ro = font.readUInt16BE(rangeOffsets + s);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let glyph: number;
      if (ro === 0) glyph = (cp + delta) & 0xffff;
      else {
        const g = font.readUInt16BE(rangeOffsets + s + ro + 2 * (cp - start));
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
