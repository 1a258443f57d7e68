import { createCanvas } from 'canvas';
import { describe, expect, it } from 'vitest';
import { fontIsolation, fontString, missingGlyphs } from '../../src/labels/fonts.js';
import { HOSTILE } from './samples.js';

/**
 * Missing-glyph detection: Pango draws a code point no font has as a "hex
 * box" whose advance and ink box are the same for every BMP code point at a
 * given size. A character whose advance and ink box both match the box drawn
 * for a private-use code point (in none of our fonts) is missing.
 */
const canvas = createCanvas(240, 240);
const ctx = canvas.getContext('2d');

function signature(ch: string, weight: 'normal' | 'bold'): string {
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, 240, 240);
  ctx.font = fontString(80, weight);
  ctx.fillStyle = '#000';
  ctx.fillText(ch, 40, 160);
  const { data } = ctx.getImageData(0, 0, 240, 240);
  let [x0, y0, x1, y1] = [240, 240, -1, -1];
  for (let y = 0; y < 240; y++) {
    for (let x = 0; x < 240; x++) {
      if (data[(y * 240 + x) * 4]! < 128) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
    }
  }
  return `${ctx.measureText(ch).width.toFixed(2)} ${x1 - x0}x${y1 - y0}`;
}

// Pango's box holds 4 hex digits for the BMP and 6 above it: compare with a private-use character of the same plane size.
const isMissing = (ch: string, weight: 'normal' | 'bold') => signature(ch, weight) === signature(ch.codePointAt(0)! > 0xffff ? '\u{F0000}' : '\uE000', weight);

describe('bundled fonts', () => {
  it('are the only fonts fontconfig sees (host fonts cannot change labels)', () => {
    expect(fontIsolation).toBe('isolated');
  });

  it('the pixel detector flags code points no bundled font has', () => {
    for (const w of ['normal', 'bold'] as const) {
      expect(isMissing('\uE123', w)).toBe(true);
      expect(isMissing('A', w)).toBe(false);
    }
  });

  it('missingGlyphs (from the fonts\' cmaps) agrees with what Pango draws, character by character', () => {
    const chars = new Set(HOSTILE.flatMap(({ record }) => [...[record.name, ...record.path].join('')]).filter((c) => c.trim() && !/\p{M}|\p{Default_Ignorable_Code_Point}/u.test(c)));
    for (const extra of ['𐐷', '𓀀', '\uE000', 'ก', 'क', '🧰', '한', '繁']) chars.add(extra);
    expect(chars.size).toBeGreaterThan(100);
    for (const c of chars) expect(missingGlyphs(c).length > 0, `U+${c.codePointAt(0)!.toString(16)}`).toBe(isMissing(c, 'normal'));
  });

  const scripts = ['accents', 'greek-cyrillic', 'arabic', 'persian-urdu', 'hebrew', 'cjk', 'japanese-korean', 'thai', 'indic', 'emoji'];
  for (const name of scripts) {
    it(`draw every character of the ${name} sample (regular and bold)`, () => {
      const { record } = HOSTILE.find((s) => s.name === name)!;
      const chars = new Set([...[record.name, ...record.path].join('')].filter((c) => c.trim() && !/\p{M}|\p{Default_Ignorable_Code_Point}/u.test(c)));
      expect(chars.size).toBeGreaterThan(3);
      for (const w of ['normal', 'bold'] as const) {
        const missing = [...chars].filter((c) => isMissing(c, w));
        expect(missing, `${name} ${w}`).toEqual([]);
      }
    });
  }
});
