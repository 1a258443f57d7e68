/**
 * Fitting text into boxes: wrap at word (or CJK character) boundaries, then
 * ellipsize. Pure apart from the injected measure function, so layouts are
 * reproducible and testable.
 */
import { fontString, type Weight } from './fonts.js';

/** Width in px of `text` drawn with a canvas font string. */
export type Measure = (font: string, text: string) => number;

/** Line step and the extent above/below the baseline, as fractions of the font size. */
export const LINE_HEIGHT = 1.22;
export const ASCENT = 0.93;
export const DESCENT = 0.29;

const ELLIPSIS = '…';
const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Hebrew, Arabic (+ Syriac, Thaana, NKo) and their presentation forms. */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const STRONG = /[\p{L}]/u;
/** Punctuation that must not end (OPENING) or start (CLOSING) a line, incl. CJK. */
const OPENING = /^[\p{Ps}\p{Pi}]+$/u;
const CLOSING = /^[\p{Pe}\p{Pf}、。，．：；！？・ー…]+$/u;

/** Direction of the first strong character (the Unicode bidi "P2" rule). */
export function isRtl(text: string): boolean {
  for (const ch of text) {
    if (RTL.test(ch)) return true;
    if (STRONG.test(ch)) return false;
  }
  return false;
}

export interface TextStyle {
  size: number;
  weight: Weight;
}

export function styleFont(s: TextStyle): string {
  return fontString(s.size, s.weight);
}

function splitGraphemes(text: string): string[] {
  return Array.from(graphemes.segment(text), (g) => g.segment);
}

/** Longest prefix of `text` that fits with an ellipsis after it. */
export function ellipsize(text: string, maxWidth: number, font: string, measure: Measure): string {
  if (measure(font, text) <= maxWidth) return text;
  const g = splitGraphemes(text);
  let lo = 0;
  let hi = g.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(font, g.slice(0, mid).join('').trimEnd() + ELLIPSIS) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return g.slice(0, lo).join('').trimEnd() + ELLIPSIS;
}

/**
 * Greedy wrap into at most maxLines lines. Returns null when the text needs
 * more lines than that (unless ellipsize is set: then the last line is cut).
 */
export function wrap(
  text: string,
  maxWidth: number,
  maxLines: number,
  font: string,
  measure: Measure,
  ellipsizeLast: boolean,
): string[] | null {
  const clean = text.replace(/\s+/gu, ' ').trim();
  if (clean === '') return [];
  if (measure(font, clean) <= maxWidth) return [clean];
  // Word segments; CJK yields one segment per word/character, so it breaks too.
  const segs: string[] = [];
  let glue = ''; // opening punctuation waits for the word it opens
  for (const { segment } of words.segment(clean)) {
    if (OPENING.test(segment)) glue += segment;
    else if (CLOSING.test(segment) && segs.length && !glue) segs[segs.length - 1] += segment;
    else if (measure(font, (glue + segment).trim()) <= maxWidth) segs.push(glue + segment);
    else segs.push(...splitGraphemes(glue + segment)); // one very long word: break it anywhere
    if (!OPENING.test(segment)) glue = '';
  }
  if (glue) segs.push(glue);
  const lines: string[] = [];
  let line = '';
  let overflow = false;
  for (const seg of segs) {
    if (line === '') {
      line = seg.trimStart();
      continue;
    }
    const candidate = line + seg;
    if (measure(font, candidate.trimEnd()) <= maxWidth) {
      line = candidate;
      continue;
    }
    lines.push(line.trimEnd());
    line = seg.trimStart();
    if (lines.length === maxLines) {
      overflow = true;
      break;
    }
  }
  if (!overflow && line !== '') lines.push(line.trimEnd());
  if (!overflow) return lines;
  if (!ellipsizeLast) return null;
  // Everything from the last allowed line on goes into that line, cut.
  const kept = lines.slice(0, maxLines - 1);
  kept.push(ellipsize(clean.slice(offsetOfLine(clean, kept)).trim(), maxWidth, font, measure));
  return kept;
}

/** Offset in `text` just past the given leading lines (lines are trimmed substrings in order). */
function offsetOfLine(text: string, lines: string[]): number {
  let at = 0;
  for (const l of lines) {
    const i = text.indexOf(l, at);
    at = i < 0 ? at : i + l.length;
  }
  return at;
}

export interface FittedBlock {
  lines: string[];
  style: TextStyle;
}

export function blockHeight(b: FittedBlock): number {
  return b.lines.length * LINE_HEIGHT * b.style.size;
}

/** Gap between consecutive blocks. */
export function blockGap(size: number): number {
  return Math.round(0.3 * size);
}

export function stackHeight(blocks: FittedBlock[]): number {
  let h = 0;
  blocks.forEach((b, i) => {
    if (i > 0) h += blockGap(b.style.size);
    h += blockHeight(b);
  });
  return h;
}

export interface FitOptions {
  titleSize: number;
  lineSize: number;
  /** Smallest size drawn (the readability floor). */
  floor: number;
  titleLines: number;
  lineLines: number;
}

/**
 * Fits a bold title and secondary lines into width x height.
 * 1. Secondary lines take the largest size (<= lineSize) at which each wraps
 *    within lineLines.
 * 2. The title shrinks from titleSize until it wraps within titleLines and
 *    everything fits; secondary lines stay smaller than the title and are
 *    ellipsized at their line limit rather than shrinking the title further.
 * 3. Once the title is down to 1.2x the floor, lower-priority lines give
 *    up lines, then go, before the title shrinks on to the floor, where it is
 *    ellipsized. The title is always drawn.
 */
export function fitText(title: string, lines: string[], o: FitOptions, width: number, height: number, measure: Measure): FittedBlock[] {
  const regular = (size: number): TextStyle => ({ size, weight: 'normal' });
  let lineSize = Math.max(o.floor, o.lineSize);
  while (lineSize > o.floor && lines.some((l) => !wrap(l, width, o.lineLines, styleFont(regular(lineSize)), measure, false))) {
    lineSize = Math.max(o.floor, Math.floor(lineSize * 0.9));
  }
  const titleMin = Math.round(o.floor * 1.2);
  for (let size = Math.max(o.floor, o.titleSize); ; size = Math.max(o.floor, Math.floor(size * 0.92))) {
    const atFloor = size === o.floor;
    const ls = Math.min(lineSize, Math.max(o.floor, Math.round(size / 1.2)));
    const r = cutToFit(title, { size, weight: 'bold' }, lines, regular(ls), o, width, height, atFloor, measure);
    if (r && (r.complete || size <= titleMin || atFloor)) return r.blocks;
  }
}

/**
 * Title plus as many secondary lines as fit, taking lines away from the
 * lowest-priority block first. Null if the title itself does not wrap within
 * its limit (and may not be ellipsized).
 */
function cutToFit(
  title: string,
  titleStyle: TextStyle,
  lines: string[],
  lineStyle: TextStyle,
  o: FitOptions,
  width: number,
  height: number,
  ellipsizeTitle: boolean,
  measure: Measure,
): { blocks: FittedBlock[]; complete: boolean } | null {
  const lineFont = styleFont(lineStyle);
  const titleFont = styleFont(titleStyle);
  let titleLimit = o.titleLines;
  let limits = lines.map(() => o.lineLines);
  let count = lines.length;
  // Each (line, limit) wraps once however many rounds the loop takes.
  const memo = new Map<number, string[]>();
  const wrapped = (i: number, limit: number): string[] => {
    const key = i * 64 + limit;
    let l = memo.get(key);
    if (!l) memo.set(key, (l = wrap(lines[i]!, width, limit, lineFont, measure, true) ?? []));
    return l;
  };
  for (;;) {
    const t = wrap(title, width, titleLimit, titleFont, measure, ellipsizeTitle);
    if (!t) return null;
    const blocks: FittedBlock[] = [{ lines: t, style: titleStyle }];
    for (let i = 0; i < count; i++) {
      const l = wrapped(i, limits[i]!);
      if (l.length) blocks.push({ lines: l, style: lineStyle });
    }
    const complete = count === lines.length && limits.every((l) => l === o.lineLines);
    if (stackHeight(blocks) <= height) return { blocks, complete };
    // Take a line from the lowest-priority block that has more than one, else drop the last block.
    let j = count - 1;
    while (j >= 0 && limits[j]! <= 1) j--;
    if (j >= 0) limits = limits.map((l, i) => (i === j ? l - 1 : l));
    else if (count > 0) count--;
    else if (ellipsizeTitle && titleLimit > 1) titleLimit--;
    else return ellipsizeTitle ? { blocks, complete: false } : null;
  }
}
