import { describe, expect, it } from 'vitest';
import { breakUnits, ellipsize, fitBlocks, fitFooter, isRtl, stackHeight, wrap, wrapPath, type Measure } from '../../src/labels/text.js';

/** Every character 10 px wide at any size: predictable widths. */
const mono: Measure = (font, text) => [...text].length * (Number(/(\d+)px/.exec(font)![1]) / 10) * 10;
const F = '10px x';

describe('text fitting', () => {
  it('wraps at spaces and keeps words whole', () => {
    expect(wrap('aaa bbb ccc', 70, 3, F, mono, false)).toEqual(['aaa bbb', 'ccc']);
  });
  it('returns null past the line limit unless asked to ellipsize', () => {
    expect(wrap('aaa bbb ccc ddd', 30, 2, F, mono, false)).toBeNull();
    expect(wrap('aaa bbb ccc ddd', 40, 2, F, mono, true)).toEqual(['aaa', 'bbb…']);
  });
  it('breaks CJK between characters and keeps brackets with their word', () => {
    const lines = wrap('无绳电钻（工具）', 50, 3, F, mono, false)!;
    expect(lines.join('')).toBe('无绳电钻（工具）');
    expect(lines.every((l) => !l.endsWith('（') && !l.startsWith('）'))).toBe(true);
  });
  it('cuts a word too wide for the line at a hyphen or slash before anywhere inside it, never inside a number', () => {
    expect(ellipsize('Heavy-duty drill', 100, F, mono)).toBe('Heavy-…');
    expect(ellipsize('AC/DC adapter', 50, F, mono)).toBe('AC/…');
    expect(wrap('Heavy-duty cordless drill', 100, 1, F, mono, true)).toEqual(['Heavy-…']);
    expect(wrap('Heavy-duty cordless drill', 100, 2, F, mono, true)).toEqual(['Heavy-duty', 'cordless…']);
    expect(wrap('Heavy-duty cordless drill', 90, 2, F, mono, true)).toEqual(['Heavy-', 'duty…']);
    // A dash inside a number is no break opportunity ("555-…" would read as a different number): graphemes, as before.
    expect(ellipsize('555-0100-2233 x', 80, F, mono)).toBe('555-010…');
    expect(ellipsize('Donaudampfschiff', 60, F, mono)).toBe('Donau…');
  });
  it('ellipsizes to the widest prefix that fits', () => {
    expect(ellipsize('abcdefgh', 50, F, mono)).toBe('abcd…');
    expect(ellipsize('abc', 50, F, mono)).toBe('abc');
  });
  it('detects right-to-left paragraphs by their first strong character', () => {
    expect(isRtl('12 מדף')).toBe(true);
    expect(isRtl('الرف 3')).toBe(true);
    expect(isRtl('Shelf 3 › מדף')).toBe(false);
  });
  it('never exceeds the box, dropping secondary lines before the title', () => {
    const o = { max: 40, min: 10, lineRatio: 0.5, titleLines: 2, lineLines: 2 };
    const { blocks } = fitBlocks([{ text: 'Title words here', bold: true }, { text: 'one two three four five six', bold: false }, { text: 'seven eight nine', bold: false }], o, 100, 40, mono);
    expect(stackHeight(blocks)).toBeLessThanOrEqual(40);
    expect(blocks[0]!.style.weight).toBe('bold');
    expect(blocks[0]!.lines.join(' ')).toContain('Title');
  });
  it('grows text to its maximum when there is room', () => {
    const r = fitBlocks([{ text: 'Hi', bold: true }, { text: 'there', bold: false }], { max: 40, min: 10, lineRatio: 0.5, titleLines: 2, lineLines: 2 }, 1000, 1000, mono);
    expect(r.blocks.map((b) => b.style.size)).toEqual([40, 20]);
    expect(r.complete).toBe(true);
  });
  it('keeps a name and its number together, and numbers whole', () => {
    expect(breakUnits('Shelf Bin 12 call +1 555 0100')).toEqual(['Shelf ', 'Bin 12 ', 'call ', '+1 555 0100']);
    expect(wrap('Box Bin 12', 70, 3, F, mono, false)).toEqual(['Box', 'Bin 12']);
  });
  it('breaks a path only between locations and keeps the first and last of a deep one', () => {
    const path = ['Building A', 'Basement', 'Workshop', 'Cabinet', 'Shelf 3', 'Box 5'];
    const lines = wrapPath(path, ' › ', 330, 1, F, mono);
    expect(lines).toEqual(['Building A › … › Shelf 3 › Box 5']);
    for (const l of wrapPath(path, ' › ', 150, 3, F, mono)) expect(l.endsWith('›') || path.some((p) => l.endsWith(p))).toBe(true);
  });
  it('the footer shrinks, then wraps, and is never cut inside a number', () => {
    const f = fitFooter('If found, call +1 555 0100', 20, 10, 220, 100, mono)!;
    expect(f.lines).toEqual(['If found, call', '+1 555 0100']);
    const cut = fitFooter('If found, call +1 555 0100', 20, 10, 180, 13, mono)!;
    expect(cut.lines).toEqual(['If found, call…']);
  });
  it('a footer that would be shortened to next to nothing ("If…") is left out', () => {
    expect(fitFooter('If found, call +1 555 0100', 20, 10, 40, 13, mono)).toBeNull();
  });
  it('breaks a word only where it would not fit whole even at the smallest size: otherwise it shrinks first', () => {
    expect(wrap('Shelf 3', 40, 2, F, mono, false, '5px x')).toBeNull();
    expect(wrap('Shelf 3', 40, 2, F, mono, false)).toEqual(['Shel', 'f 3']);
    expect(wrap('Donaudampfschiff', 50, 4, F, mono, false, '3px x')).toBeNull();
    expect(wrap('Donaudampfschiff', 50, 4, F, mono, false, '5px x')).toEqual(['Donau', 'dampf', 'schif', 'f']);
    // "Shelf 3" shrinks to one line rather than leave its number alone on the next.
    const r = fitBlocks([{ text: 'Shelf 3', bold: true }], { max: 20, min: 5, lineRatio: 0.5, titleLines: 2, lineLines: 2 }, 50, 100, mono);
    expect(r.blocks[0]!.lines).toEqual(['Shelf 3']);
    const two = fitBlocks([{ text: 'Cordless drill', bold: true }], { max: 20, min: 5, lineRatio: 0.5, titleLines: 2, lineLines: 2 }, 80, 100, mono);
    expect(two.blocks[0]!.lines).toEqual(['Cordless', 'drill']);
  });
});
