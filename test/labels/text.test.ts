import { describe, expect, it } from 'vitest';
import { ellipsize, fitText, isRtl, stackHeight, wrap, type Measure } from '../../src/labels/text.js';

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
    const o = { titleSize: 40, lineSize: 20, floor: 10, titleLines: 2, lineLines: 2 };
    const blocks = fitText('Title words here', ['one two three four five six', 'seven eight nine'], o, 100, 40, mono);
    expect(stackHeight(blocks)).toBeLessThanOrEqual(40);
    expect(blocks[0]!.style.weight).toBe('bold');
    expect(blocks[0]!.lines.join(' ')).toContain('Title');
  });
  it('keeps the preferred sizes when everything fits', () => {
    const o = { titleSize: 40, lineSize: 20, floor: 10, titleLines: 2, lineLines: 2 };
    const blocks = fitText('Hi', ['there'], o, 1000, 1000, mono);
    expect(blocks.map((b) => b.style.size)).toEqual([40, 20]);
  });
});
