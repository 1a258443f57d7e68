/**
 * Fitting text into boxes: break into units that must stay together, wrap
 * them greedily, and ellipsize only at unit boundaries. Pure apart from the
 * injected measure function, so layouts are reproducible and testable.
 *
 * Units: a line may break after a space, or between two characters of scripts
 * written without spaces (CJK, Thai...), never inside a number ("+1 555 0100"
 * is one unit) and never between a word and the number that follows it
 * ("Bin 12"). A location path breaks only between its locations.
 */
import type { Weight } from './font-files.js';
import { fontString } from './fonts.js';

/** Advance width in px of `text` drawn with a canvas font string. */
export type Measure = (font: string, text: string) => number;

/** Line step and the extent above/below the baseline, as fractions of the font size. */
export const LINE_HEIGHT = 1.22;
export const ASCENT = 0.93;
export const DESCENT = 0.29;

export const ELLIPSIS = '…';
const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Hebrew, Arabic (+ Syriac, Thaana, NKo) and their presentation forms. */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const STRONG = /[\p{L}]/u;
/** Scripts written without spaces between words: a line may break between any two of their words. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/**
 * Southeast Asian scripts without spaces. ICU's dictionary splits a word it does not know
 * (a loanword: ลิเธียม "lithium", ยูเอสบี "USB") into fragments of one or two graphemes,
 * ลิ|เธี|ยม; its own short words sit beside longer ones. So two such fragments in a row are
 * one word for line breaking (still broken there if the word alone is wider than a line).
 */
const SEA = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const isFragment = (segment: string) => SEA.test(segment) && splitGraphemes(segment).length <= 2;
/** Punctuation that must not end (OPENING) or start (CLOSING) a line, incl. CJK. */
const OPENING = /^[\p{Ps}\p{Pi}]+$/u;
const CLOSING = /^[\p{Pe}\p{Pf}、。，．：；！？・ー…,.;:!?]+$/u;
const SPACE = /^\s+$/u;
const DIGIT_START = /^[\p{Nd}]/u;
const DIGIT_END = /[\p{Nd}]\s*$/u;
/** What may continue a number without a space: "5.0", "+1", "(0)", "12/3", "1-2". */
const NUMBER_GLUE = /^[+().\/-]$/u;

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

export function splitGraphemes(text: string): string[] {
  return Array.from(graphemes.segment(text), (g) => g.segment);
}

/**
 * The text as units that must not be split across lines, each with its
 * trailing space. Joining them gives the text back.
 */
export function breakUnits(text: string): string[] {
  // Fitting wraps the same text at many sizes; segmenting is the slow part.
  let units = unitsCache.get(text);
  if (!units) {
    if (unitsCache.size >= 2048) unitsCache.clear();
    unitsCache.set(text, (units = segmentUnits(text)));
  }
  return units;
}
const unitsCache = new Map<string, string[]>();

function segmentUnits(text: string): string[] {
  const units: string[] = [];
  let unit = '';
  let prev = '';
  let glue = false; // the unit ends in opening punctuation
  for (const { segment } of words.segment(text)) {
    const space = SPACE.test(segment);
    let joins: boolean;
    if (unit === '' || space) joins = true;
    else if (glue || CLOSING.test(segment)) joins = true;
    else if (SPACE.test(prev)) {
      // After a space: a new unit, unless a number follows a word or a number ("Bin 12", "555 0100").
      joins = DIGIT_START.test(segment) && /[\p{L}\p{N}]\s*$/u.test(unit);
    } else {
      // No space between: split only where a script without spaces is involved, never inside a number.
      const numeric = (DIGIT_END.test(unit) && (DIGIT_START.test(segment) || NUMBER_GLUE.test(segment))) || (NUMBER_GLUE.test(prev) && DIGIT_START.test(segment));
      joins = numeric || !(NO_SPACES.test(segment) || NO_SPACES.test(prev)) || (isFragment(prev) && isFragment(segment));
    }
    if (!joins) {
      units.push(unit);
      unit = '';
    }
    unit += segment;
    glue = OPENING.test(segment);
    prev = segment;
  }
  if (unit) units.push(unit);
  return units;
}

/** Longest run of whole units (else of graphemes) of `text` that fits with an ellipsis after it. */
export function ellipsize(text: string, maxWidth: number, font: string, measure: Measure): string {
  if (measure(font, text) <= maxWidth) return text;
  const units = breakUnits(text);
  // Whole units: widths summed (each unit shaped once), as fill() does.
  const dots = measure(font, ELLIPSIS);
  const prefix = [0];
  for (const u of units) prefix.push(prefix[prefix.length - 1]! + measure(font, u));
  let n = longest(units.length, (k) => prefix[k - 1]! + measure(font, units[k - 1]!.trimEnd()) + dots <= maxWidth);
  if (n > 0) return units.slice(0, n).join('').trimEnd() + ELLIPSIS;
  // The first unit is too wide: cut it at a break opportunity inside it before anywhere else ("Heavy-…", not "Heavy-dut…").
  const opportunity = innerBreak(units[0]!, (prefix) => measure(font, prefix + ELLIPSIS) <= maxWidth);
  if (opportunity) return opportunity + ELLIPSIS;
  // Inside one unit: graphemes shape with their neighbours (Arabic joins), so measure the real prefix.
  const g = splitGraphemes(text);
  n = longest(g.length, (k) => measure(font, g.slice(0, k).join('').trimEnd() + ELLIPSIS) <= maxWidth);
  return n > 0 ? g.slice(0, n).join('').trimEnd() + ELLIPSIS : '';
}

/**
 * The longest prefix of a unit that ends at a break opportunity inside it and
 * passes `fits`: after a hyphen, slash or other punctuation between words
 * ("Heavy-duty" -> "Heavy-", "AC/DC" -> "AC/"), never inside a number
 * ("555-0100" stays whole). Empty when there is none.
 */
export function innerBreak(unit: string, fits: (prefix: string) => boolean): string {
  const segs = Array.from(words.segment(unit.trimEnd()));
  let best = '';
  let prefix = '';
  for (let i = 0; i < segs.length - 1; i++) {
    const { segment, isWordLike } = segs[i]!;
    const before = prefix;
    prefix += segment;
    if (isWordLike || SPACE.test(segment) || OPENING.test(segment)) continue;
    if (NUMBER_GLUE.test(segment) && DIGIT_END.test(before) && DIGIT_START.test(segs[i + 1]!.segment)) continue;
    if (!fits(prefix)) break;
    best = prefix;
  }
  return best;
}

/** Largest k in [0, n] with ok(k) (ok is monotone, ok(0) assumed). */
function longest(n: number, ok: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Greedy fill of units into lines of maxWidth; a unit wider than a line is
 * split by `split` (null: words may not be broken at this size, so the text
 * does not fit). A candidate line's width is the sum of its units' widths, each
 * measured once: no new shaping per candidate (kerning across a space is nil;
 * the layout measures every line it finally draws).
 */
function fill(units: string[], maxWidth: number, font: string, measure: Measure, split: (unit: string) => string[] | null): string[] | null {
  const lines: string[] = [];
  let line = '';
  let lineW = 0; // width of `line`, trailing spaces included
  const queue = [...units];
  while (queue.length) {
    const u = queue.shift()!;
    const trimmed = u.trimEnd();
    if (lineW + measure(font, trimmed) <= maxWidth) {
      line += u;
      lineW += measure(font, u);
      continue;
    }
    if (line !== '') {
      lines.push(line.trimEnd());
      line = '';
      lineW = 0;
      queue.unshift(u);
      continue;
    }
    // A unit wider than the whole line: break it into smaller pieces (or, for a single grapheme, draw it alone).
    const parts = split(u);
    if (parts === null) return null;
    if (parts.length <= 1) {
      lines.push(u.trimEnd());
      continue;
    }
    queue.unshift(...parts);
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines;
}

/**
 * Wraps text into at most maxLines lines. Returns null when it needs more
 * (unless ellipsizeLast: then the last line holds the rest, ellipsized). A
 * unit wider than a line is broken (into words, then graphemes) only if it
 * would not fit whole even in `minFont` (the smallest size); otherwise null:
 * the caller makes the text smaller first.
 */
export function wrap(text: string, maxWidth: number, maxLines: number, font: string, measure: Measure, ellipsizeLast: boolean, minFont?: string): string[] | null {
  const clean = text.replace(/\s+/gu, ' ').trim();
  if (clean === '') return [];
  if (measure(font, clean) <= maxWidth) return [clean];
  const units = breakUnits(clean);
  const lines = fill(units, maxWidth, font, measure, (u) => {
    // A unit wider than a line: smaller text first; at the smallest, its words, then graphemes.
    if (minFont !== undefined && measure(minFont, u.trimEnd()) <= maxWidth) return null;
    const inner = Array.from(words.segment(u), (s) => s.segment);
    return inner.length > 1 ? inner : splitGraphemes(u);
  });
  if (lines === null) return null;
  if (lines.length <= maxLines) return lines;
  if (!ellipsizeLast) return null;
  const kept = lines.slice(0, maxLines - 1);
  kept.push(ellipsize(lines.slice(maxLines - 1).join(' '), maxWidth, font, measure));
  return kept;
}

/**
 * Wraps a location path, breaking only between its locations (a name longer
 * than a line wraps by its words). When it needs more than maxLines lines,
 * locations are left out from the second on, keeping the first and as many
 * of the last as fit: "Building A › … › Shelf 3 › Box 5".
 */
export function wrapPath(segments: readonly string[], sep: string, maxWidth: number, maxLines: number, font: string, measure: Measure): string[] {
  const lay = (segs: string[]): string[] => {
    const units = segs.map((s, i) => (i < segs.length - 1 ? s + sep : s));
    return fill(units, maxWidth, font, measure, (u) => {
      const inner = breakUnits(u);
      return inner.length > 1 ? inner : splitGraphemes(u);
    })!;
  };
  const all = lay([...segments]);
  if (all.length <= maxLines) return all;
  const n = segments.length;
  for (let keepLast = n - 2; keepLast >= 1; keepLast--) {
    const lines = lay([segments[0]!, ELLIPSIS, ...segments.slice(n - keepLast)]);
    if (lines.length <= maxLines) return lines;
  }
  // Not even "first › … › last": the last location matters most.
  const tail = lay([ELLIPSIS, segments[n - 1]!]);
  if (tail.length <= maxLines) return tail;
  const kept = tail.slice(0, maxLines - 1);
  kept.push(ellipsize(tail.slice(maxLines - 1).join(' '), maxWidth, font, measure));
  return kept;
}

export interface FittedBlock {
  lines: string[];
  style: TextStyle;
  /** Lines stacked by their own ink (an identifier of digits and dashes at the smallest size, where font-height lines do not fit). */
  tight?: true;
  /** Drawn in the red plane (ContentBlock.red). */
  red?: true;
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

/** A block to fit: the first is the title (bold), the rest are secondary lines in order of importance. */
export interface TextBlock {
  text: string;
  segments?: readonly string[];
  sep?: string;
  bold: boolean;
  /** Never shortened, and dropped only when even the title's one line leaves it no room (ContentBlock.keep). */
  keep?: boolean;
  /** Drawn in the red plane; carried to its FittedBlock. */
  red?: true;
}

export interface FitOptions {
  /** Largest and smallest size (px) of the title; secondary lines are at most lineRatio of the title. */
  max: number;
  min: number;
  lineRatio: number;
  /** Largest secondary size (e.g. below a caption that must stay the largest text). */
  lineMax?: number;
  titleLines: number;
  lineLines: number;
}

export interface FitResult {
  blocks: FittedBlock[];
  /** Everything drawn whole at its wanted size (nothing dropped, cut or at a reduced line count). */
  complete: boolean;
  /**
   * A block drawn is not all of its text: ellipsized ("Heavy-…", "…" after the lines that fit)
   * or, at the smallest size, past the box. Not a path's locations left out between its first
   * and last (`Building A › … › Box 5`, by design), a line left out whole, or a kept line (TextBlock.keep: its own warning).
   */
  shortened: boolean;
  titleSize: number;
}

/**
 * Fits blocks into width x height, as large as allowed (text grows to fill
 * its box, up to max):
 * 1. The title shrinks from max until it wraps within titleLines and
 *    everything fits; secondary lines follow it at lineRatio.
 * 2. Once the title is down to 1.2x min, lower-priority lines give up lines,
 *    then go, before the title shrinks on to min, where it is ellipsized.
 *    The title is always drawn.
 */
export function fitBlocks(blocks: TextBlock[], o: FitOptions, width: number, height: number, measure: Measure): FitResult {
  const titleMin = Math.round(o.min * 1.2);
  const at = (size: number): FitResult | null => {
    const ls = Math.max(o.min, Math.min(o.lineMax ?? Infinity, Math.round(size * o.lineRatio)));
    const r = cutToFit(blocks, size, ls, o, width, height, size === o.min, measure);
    return r && { ...r, titleSize: size };
  };
  // The largest size at which everything fits whole: fitting only gets easier as
  // text shrinks, so bisect between titleMin and max instead of stepping down.
  const top = Math.max(o.min, Math.floor(o.max));
  const first = at(top);
  if (first?.complete) return first;
  let lo = Math.min(top, Math.max(o.min, titleMin));
  let hi = top; // not whole at hi
  let best: FitResult | null = null;
  const low = lo < hi ? at(lo) : null;
  if (low?.complete) {
    best = low;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const r = at(mid);
      if (r?.complete) {
        best = r;
        lo = mid;
      } else hi = mid;
    }
    return best;
  }
  // Not whole even at 1.2x min: lower-priority lines give way (cutToFit) from
  // titleMin down; at min the title is ellipsized and always drawn.
  const fallback = first ?? low;
  for (let size = Math.min(top, Math.max(o.min, titleMin)); ; size = Math.max(o.min, Math.floor(size * 0.93))) {
    const r = at(size);
    if (r) return r;
    if (size === o.min) return fallback ?? { blocks: [], complete: false, shortened: true, titleSize: size };
  }
}

function cutToFit(
  blocks: TextBlock[],
  titleSize: number,
  lineSize: number,
  o: FitOptions,
  width: number,
  height: number,
  ellipsizeTitle: boolean,
  measure: Measure,
): { blocks: FittedBlock[]; complete: boolean; shortened: boolean } | null {
  const [title, ...rest] = blocks;
  if (!title) return { blocks: [], complete: true, shortened: false };
  const titleStyle: TextStyle = { size: titleSize, weight: title.bold ? 'bold' : 'normal' };
  const styleOf = (b: TextBlock): TextStyle => ({ size: lineSize, weight: b.bold ? 'bold' : 'normal' });
  let titleLimit = o.titleLines;
  let limits = rest.map(() => o.lineLines);
  /** Lines left out, the last first; a kept line only after the title is down to one line. */
  const dropped = new Set<number>();
  const memo = new Map<number, string[]>();
  const wrapped = (i: number, limit: number): string[] => {
    const key = i * 64 + limit;
    let l = memo.get(key);
    if (!l) {
      const b = rest[i]!;
      const font = styleFont(styleOf(b));
      l = b.segments && b.segments.length > 1
        ? wrapPath(b.segments, b.sep ?? ' › ', width, limit, font, measure)
        : (wrap(b.text, width, limit, font, measure, true) ?? []);
      memo.set(key, l);
    }
    return l;
  };
  for (;;) {
    const t = title.segments && title.segments.length > 1
      ? wrapPath(title.segments, title.sep ?? ' › ', width, titleLimit, styleFont(titleStyle), measure)
      : wrap(title.text, width, titleLimit, styleFont(titleStyle), measure, ellipsizeTitle, ellipsizeTitle ? undefined : styleFont({ ...titleStyle, size: o.min }));
    if (!t) return null;
    const out: FittedBlock[] = [{ lines: t, style: titleStyle, ...(title.red ? { red: true as const } : {}) }];
    let shortened = !drawnWhole(title, t);
    for (let i = 0; i < rest.length; i++) {
      if (dropped.has(i)) continue;
      const l = wrapped(i, limits[i]!);
      if (l.length) out.push({ lines: l, style: styleOf(rest[i]!), ...(rest[i]!.red ? { red: true as const } : {}) });
      if (!rest[i]!.keep && !drawnWhole(rest[i]!, l)) shortened = true;
    }
    const cut = out.some((b) => b.lines.some((l) => l.includes(ELLIPSIS)) && !blocks.some((x) => x.text.includes(ELLIPSIS)));
    const complete = dropped.size === 0 && limits.every((l) => l === o.lineLines) && !cut;
    if (stackHeight(out) <= height) return { blocks: out, complete, shortened };
    // What gives way, in order: other lines' lines, other lines, the title's lines, a kept line.
    const last = (ok: (i: number) => boolean) => {
      for (let i = rest.length - 1; i >= 0; i--) if (!dropped.has(i) && ok(i)) return i;
      return -1;
    };
    const j = last((i) => !rest[i]!.keep && limits[i]! > 1);
    const other = last((i) => !rest[i]!.keep);
    if (j >= 0) limits = limits.map((l, i) => (i === j ? l - 1 : l));
    else if (other >= 0) dropped.add(other);
    else if (ellipsizeTitle && titleLimit > 1) titleLimit--;
    else if (ellipsizeTitle && last(() => true) >= 0) dropped.add(last(() => true));
    else return ellipsizeTitle ? { blocks: out, complete: false, shortened: true } : null; // taller than the box: its clip cuts it
  }
}

/**
 * Whether lines show all of a block's text: the same characters apart from spaces (lines break
 * at spaces, or between characters where a script has none). A path is whole when it does not
 * end shortened: locations left out between its first and last are its design (wrapPath).
 */
function drawnWhole(block: TextBlock, lines: readonly string[]): boolean {
  if (block.segments && block.segments.length > 1) {
    const last = lines.at(-1) ?? '';
    return last !== '' && !(last.endsWith(ELLIPSIS) && !block.segments.at(-1)!.endsWith(ELLIPSIS));
  }
  const bare = (text: string) => text.replace(/\s+/gu, '');
  return bare(lines.join('')) === bare(block.text);
}

/**
 * The footer in the widest way that fits: one line shrinking from `size` to
 * `min`, then two lines at min, then ellipsized at a unit boundary (never
 * inside a number). Null when even that does not fit `height`.
 */
export function fitFooter(text: string, size: number, min: number, width: number, height: number, measure: Measure): FittedBlock | null {
  for (let s = size; s >= min; s = s === min ? min - 1 : Math.max(min, Math.floor(s * 0.9))) {
    const font = fontString(s, 'normal');
    if (LINE_HEIGHT * s > height) continue;
    const one = wrap(text, width, 1, font, measure, false);
    if (one) return { lines: one, style: { size: s, weight: 'normal' } };
  }
  const font = fontString(min, 'normal');
  if (2 * LINE_HEIGHT * min <= height) {
    const two = wrap(text, width, 2, font, measure, false);
    if (two) return { lines: two, style: { size: min, weight: 'normal' } };
  }
  if (LINE_HEIGHT * min > height) return null;
  // Shortened, but only if it still says something: "If…" is left out instead.
  const line = ellipsize(text, width, font, measure);
  const kept = breakUnits(line.slice(0, -ELLIPSIS.length)).filter((u) => /[\p{L}\p{N}]/u.test(u)).length;
  return line && kept >= Math.min(3, breakUnits(text).length) ? { lines: [line], style: { size: min, weight: 'normal' } } : null;
}
