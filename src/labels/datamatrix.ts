/**
 * DataMatrix ECC 200 (ISO/IEC 16022), square symbols only: data in, modules out.
 *
 * Our own rather than a package: @zxing/library, which drew these symbols
 * before, installs 25 MB (five builds of a whole reader and writer library,
 * and a text-encoding polyfill) for one writer; @bwip-js/node installs 6 MB and
 * takes 1.2-1.8 ms a symbol, more than a label's whole ~1 ms budget; the small
 * DataMatrix packages on npm are React components or under a no-derivatives
 * licence (@barcode-bakery/barcode-datamatrix, CC BY-ND 4.0).
 *
 * The encodation follows ISO/IEC 16022 Annex P's look-ahead test step for step
 * as zxing's HighLevelEncoder (Apache-2.0) does, rounding included, so a
 * symbol is module for module the one zxing drew for the same data
 * (test/labels/datamatrix.test.ts checks it against symbols zxing drew). Not
 * copied: zxing's JavaScript port's faults. It dropped the high byte of
 * characters beyond ISO 8859-1 (data that read back as other text); here such
 * data is sent as UTF-8 behind ECI 000026. It wrote characters 128-255 in the
 * C40 and Text sets with a wrong shift value, and laid out the error
 * correction of symbols of 52 x 52 modules and more out of order.
 */
export interface DataMatrix {
  /** Modules per side (finder and timing patterns included, quiet zone not). */
  size: number;
  /** size*size cells, row-major, 1 = dark. */
  dark: Uint8Array;
}

// ---- Symbol sizes (ISO/IEC 16022 table 7, square symbols) -------------------------------------

interface SymbolSize {
  /** Data codewords. */
  data: number;
  /** Error-correction codewords (all blocks). */
  ecc: number;
  /** Data modules per side of one data region. */
  region: number;
  /** Data regions per side. */
  regions: number;
  /** Interleaved Reed-Solomon blocks. */
  blocks: number;
}

const SIZES: readonly SymbolSize[] = (
  [
    [3, 5, 8, 1, 1], [5, 7, 10, 1, 1], [8, 10, 12, 1, 1], [12, 12, 14, 1, 1], [18, 14, 16, 1, 1], [22, 18, 18, 1, 1],
    [30, 20, 20, 1, 1], [36, 24, 22, 1, 1], [44, 28, 24, 1, 1], [62, 36, 14, 2, 1], [86, 42, 16, 2, 1], [114, 48, 18, 2, 1],
    [144, 56, 20, 2, 1], [174, 68, 22, 2, 1], [204, 84, 24, 2, 2], [280, 112, 14, 4, 2], [368, 144, 16, 4, 4], [456, 192, 18, 4, 4],
    [576, 224, 20, 4, 4], [696, 272, 22, 4, 4], [816, 336, 24, 4, 6], [1050, 408, 18, 6, 6], [1304, 496, 20, 6, 8], [1558, 620, 22, 6, 10],
  ] as const
).map(([data, ecc, region, regions, blocks]) => ({ data, ecc, region, regions, blocks }));

function sizeFor(codewords: number): SymbolSize {
  const s = SIZES.find((z) => z.data >= codewords);
  if (!s) throw new RangeError(`too much data for a DataMatrix: ${codewords} codewords, at most 1558`);
  return s;
}

// ---- High-level encodation (Annex P, as zxing's HighLevelEncoder) -------------------------------

const ASCII = 0, C40 = 1, TEXT = 2, X12 = 3, EDIFACT = 4, BASE256 = 5;
type Mode = 0 | 1 | 2 | 3 | 4 | 5;
/** Latch codewords from ASCII into each mode. */
const LATCH = [0, 230, 239, 238, 240, 231];
const PAD = 129, UNLATCH = 254, UPPER_SHIFT = 235, ECI = 241;

class Context {
  pos = 0;
  readonly cw: number[] = [];
  /** The mode the current step hands over to (-1: none). */
  next = -1;
  size: SymbolSize | undefined;
  constructor(readonly msg: Uint8Array) {}
  get more(): boolean {
    return this.pos < this.msg.length;
  }
  get remaining(): number {
    return this.msg.length - this.pos;
  }
  /** Data capacity of the smallest symbol holding `len` codewords, never shrinking until size is reset. */
  capacity(len = this.cw.length): number {
    if (!this.size || len > this.size.data) this.size = sizeFor(len);
    return this.size.data;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isExtended = (c: number) => c >= 128;
const isNativeC40 = (c: number) => c === 32 || isDigit(c) || isUpper(c);
const isNativeText = (c: number) => c === 32 || isDigit(c) || isLower(c);
const isX12Term = (c: number) => c === 13 || c === 42 || c === 62; // CR * >
const isNativeX12 = (c: number) => isX12Term(c) || isNativeC40(c);
const isNativeEdifact = (c: number) => c >= 32 && c <= 94;

function lookAhead(msg: Uint8Array, start: number, mode: Mode): Mode {
  const next = lookAheadIntern(msg, start, mode);
  const native = mode === X12 ? isNativeX12 : mode === EDIFACT ? isNativeEdifact : undefined;
  if (native && next === mode) {
    const end = Math.min(start + (mode === X12 ? 3 : 4), msg.length);
    for (let i = start; i < end; i++) if (!native(msg[i]!)) return ASCII;
  }
  return next;
}

function lookAheadIntern(msg: Uint8Array, start: number, mode: Mode): Mode {
  if (start >= msg.length) return mode;
  // Costs in codewords per mode (steps J to Q); the same float sums as zxing, since their rounding decides.
  const from = (m: Mode, ascii: number, other: number) => (mode === m ? 0 : mode === ASCII ? ascii : other);
  let a = from(ASCII, 0, 1), c40 = from(C40, 1, 2), text = from(TEXT, 1, 2), x12 = from(X12, 1, 2);
  let edf = from(EDIFACT, 1, 2), b256 = from(BASE256, 1.25, 2.25);
  const ceil = Math.ceil;
  for (let p = start; ; ) {
    if (p === msg.length) {
      const ints = [ceil(a), ceil(c40), ceil(text), ceil(x12), ceil(edf), ceil(b256)];
      const min = Math.min(...ints);
      if (ints[ASCII] === min) return ASCII;
      if (ints.filter((v) => v === min).length === 1) {
        for (const m of [BASE256, EDIFACT, TEXT, X12] as const) if (ints[m] === min) return m;
      }
      return C40;
    }
    const c = msg[p++]!;
    const ext = isExtended(c);
    a = isDigit(c) ? a + 0.5 : ceil(a) + (ext ? 2 : 1);
    c40 += isNativeC40(c) ? 2 / 3 : ext ? 8 / 3 : 4 / 3;
    text += isNativeText(c) ? 2 / 3 : ext ? 8 / 3 : 4 / 3;
    x12 += isNativeX12(c) ? 2 / 3 : ext ? 13 / 3 : 10 / 3;
    edf += isNativeEdifact(c) ? 3 / 4 : ext ? 17 / 4 : 13 / 4;
    b256 += 1;
    if (p - start < 4) continue;
    // Step R, on whole codewords.
    const [ia, ic, it, ix, ie, ib] = [ceil(a), ceil(c40), ceil(text), ceil(x12), ceil(edf), ceil(b256)];
    if (ia < Math.min(ib, ic, it, ix, ie)) return ASCII;
    if (ib < ia || ib + 1 < Math.min(ic, it, ix, ie)) return BASE256;
    if (ie + 1 < Math.min(ib, ic, it, ix, ia)) return EDIFACT;
    if (it + 1 < Math.min(ib, ic, ie, ix, ia)) return TEXT;
    if (ix + 1 < Math.min(ib, ic, ie, it, ia)) return X12;
    if (ic + 1 < Math.min(ia, ib, ie, it)) {
      if (ic < ix) return C40;
      if (ic === ix) {
        for (let q = p + 1; q < msg.length; q++) {
          if (isX12Term(msg[q]!)) return X12;
          if (!isNativeX12(msg[q]!)) break;
        }
        return C40;
      }
    }
  }
}

function asciiStep(ctx: Context): void {
  const { msg, pos } = ctx;
  const c = msg[pos]!;
  if (isDigit(c) && pos + 1 < msg.length && isDigit(msg[pos + 1]!)) {
    ctx.cw.push(130 + (c - 48) * 10 + (msg[pos + 1]! - 48));
    ctx.pos += 2;
    return;
  }
  const mode = lookAhead(msg, pos, ASCII);
  if (mode !== ASCII) {
    ctx.cw.push(LATCH[mode]!);
    ctx.next = mode;
  } else {
    ctx.cw.push(...(isExtended(c) ? [UPPER_SHIFT, c - 127] : [c + 1]));
    ctx.pos++;
  }
}

/** Appends the C40 or Text values of a byte (a basic set value, or a shift and a value); returns how many. */
function tripletValues(mode: Mode, c: number, out: number[]): number {
  if (isExtended(c)) {
    out.push(1, 30); // Shift 2, Upper Shift
    return 2 + tripletValues(mode, c - 128, out);
  }
  // The basic set's letters (C40: capitals, Text: small), and the other case in shift 3.
  const [basic, shift3] = mode === C40 ? [65, 97] : [97, 65];
  if (c === 32 || isDigit(c) || (c >= basic && c < basic + 26)) {
    out.push(c === 32 ? 3 : isDigit(c) ? c - 44 : c - basic + 14);
    return 1;
  }
  if (c < 32) out.push(0, c);
  else if (c <= 47) out.push(1, c - 33);
  else if (c <= 64) out.push(1, c - 43);
  else if (c >= 91 && c <= 95) out.push(1, c - 69);
  else if (c >= shift3 && c < shift3 + 26) out.push(2, c - shift3 + 1);
  else out.push(2, c - 96); // ` { | } ~ DEL
  return 2;
}

function writeTriplets(ctx: Context, values: number[]): void {
  while (values.length >= 3) {
    const v = 1600 * values[0]! + 40 * values[1]! + values[2]! + 1;
    ctx.cw.push(v >> 8, v & 255);
    values.splice(0, 3);
  }
}

function c40Step(ctx: Context, mode: Mode): void {
  const buf: number[] = [];
  while (ctx.more) {
    let last = tripletValues(mode, ctx.msg[ctx.pos++]!, buf);
    const cur = ctx.cw.length + Math.floor(buf.length / 3) * 2;
    const available = ctx.capacity(cur) - cur;
    if (!ctx.more) {
      // Avoid a lone value in the last triplet: give characters back to ASCII (zxing's own
      // backtracking, which measures each step by the character given back).
      const back = () => {
        buf.length -= last;
        ctx.pos--;
        last = tripletValues(mode, ctx.msg[ctx.pos]!, []);
        ctx.size = undefined;
      };
      if (buf.length % 3 === 2 && available !== 2) back();
      while (buf.length % 3 === 1 && (last > 3 || available !== 1)) back();
      break;
    }
    if (buf.length % 3 === 0 && lookAhead(ctx.msg, ctx.pos, mode) !== mode) {
      ctx.next = ASCII;
      break;
    }
  }
  const rest = buf.length % 3;
  const cur = ctx.cw.length + Math.floor((buf.length / 3) * 2);
  const available = ctx.capacity(cur) - cur;
  if (rest === 2) {
    buf.push(0); // Shift 1 pads the last triplet
    writeTriplets(ctx, buf);
    if (ctx.more) ctx.cw.push(UNLATCH);
  } else if (rest === 1 && available === 1) {
    writeTriplets(ctx, buf);
    if (ctx.more) ctx.cw.push(UNLATCH);
    ctx.pos--; // the last character goes in ASCII, without unlatch
  } else if (rest === 0) {
    writeTriplets(ctx, buf);
    if (available > 0 || ctx.more) ctx.cw.push(UNLATCH);
  } else {
    throw new Error('C40/Text ends with one value and no single codeword left');
  }
  ctx.next = ASCII;
}

function x12Value(c: number): number {
  if (!isNativeX12(c)) throw new Error(`no X12 value for byte ${c}`);
  return c === 13 ? 0 : c === 42 ? 1 : c === 62 ? 2 : c === 32 ? 3 : isDigit(c) ? c - 44 : c - 51;
}

function x12Step(ctx: Context): void {
  const buf: number[] = [];
  while (ctx.more) {
    buf.push(x12Value(ctx.msg[ctx.pos++]!));
    if (buf.length === 3) {
      writeTriplets(ctx, buf);
      if (lookAhead(ctx.msg, ctx.pos, X12) !== X12) {
        ctx.next = ASCII;
        break;
      }
    }
  }
  const available = ctx.capacity() - ctx.cw.length;
  ctx.pos -= buf.length; // an incomplete triplet goes in ASCII
  if (ctx.remaining > 1 || available > 1 || ctx.remaining !== available) ctx.cw.push(UNLATCH);
  if (ctx.next < 0) ctx.next = ASCII;
}

/** Four 6-bit EDIFACT values (fewer at the end) in three codewords (fewer for fewer values). */
function edifactCodewords(v: number[]): number[] {
  const bits = ((v[0] ?? 0) << 18) | ((v[1] ?? 0) << 12) | ((v[2] ?? 0) << 6) | (v[3] ?? 0);
  return [(bits >> 16) & 255, (bits >> 8) & 255, bits & 255].slice(0, Math.min(v.length, 3));
}

function edifactStep(ctx: Context): void {
  const buf: number[] = [];
  while (ctx.more) {
    const c = ctx.msg[ctx.pos]!;
    if (!isNativeEdifact(c)) throw new Error(`no EDIFACT value for byte ${c}`);
    buf.push(c & 63);
    ctx.pos++;
    if (buf.length === 4) {
      ctx.cw.push(...edifactCodewords(buf.splice(0, 4)));
      if (lookAhead(ctx.msg, ctx.pos, EDIFACT) !== EDIFACT) {
        ctx.next = ASCII;
        break;
      }
    }
  }
  buf.push(31); // unlatch
  ctx.next = ASCII;
  if (buf.length === 1) {
    let available = ctx.capacity() - ctx.cw.length;
    if (ctx.remaining > available) available = ctx.capacity(ctx.cw.length + 1) - ctx.cw.length;
    // At most two codewords left for what remains: it goes in ASCII without the unlatch.
    if (ctx.remaining <= available && available <= 2) return;
  }
  const restChars = buf.length - 1;
  const encoded = edifactCodewords(buf);
  let restInAscii = !ctx.more && restChars <= 2;
  if (restChars <= 2 && ctx.capacity(ctx.cw.length + restChars) - ctx.cw.length >= 3) {
    restInAscii = false;
    ctx.capacity(ctx.cw.length + encoded.length);
  }
  if (restInAscii) {
    ctx.size = undefined;
    ctx.pos -= restChars;
  } else {
    ctx.cw.push(...encoded);
  }
}

function base256Step(ctx: Context): void {
  const bytes: number[] = [];
  while (ctx.more) {
    bytes.push(ctx.msg[ctx.pos++]!);
    if (lookAhead(ctx.msg, ctx.pos, BASE256) !== BASE256) {
      ctx.next = ASCII;
      break;
    }
  }
  const n = bytes.length;
  const cur = ctx.cw.length + n + 1;
  // Length 0 means "to the end of the symbol": only when nothing follows, not even padding.
  let field = [0];
  if (ctx.more || ctx.capacity(cur) > cur) {
    if (n <= 249) field = [n];
    else if (n <= 1555) field = [Math.floor(n / 250) + 249, n % 250];
    else throw new RangeError('Base 256 run longer than 1555 bytes');
  }
  for (const b of [...field, ...bytes]) {
    const r = b + ((149 * (ctx.cw.length + 1)) % 255) + 1; // 255-state randomising
    ctx.cw.push(r <= 255 ? r : r - 256);
  }
}

const STEPS: readonly ((ctx: Context) => void)[] = [asciiStep, (c) => c40Step(c, C40), (c) => c40Step(c, TEXT), x12Step, edifactStep, base256Step];

/** Data codewords by the look-ahead, and the symbol they were fitted to (never shrunk, as zxing's). */
function lookAheadCodewords(msg: Uint8Array, prefix: readonly number[]): { cw: number[]; capacity: number } {
  const ctx = new Context(msg);
  ctx.cw.push(...prefix);
  let mode: Mode = ASCII;
  while (ctx.more) {
    STEPS[mode]!(ctx);
    if (ctx.next >= 0) {
      mode = ctx.next as Mode;
      ctx.next = -1;
    }
  }
  const capacity = ctx.capacity();
  if (ctx.cw.length < capacity && (mode === C40 || mode === TEXT || mode === X12)) ctx.cw.push(UNLATCH);
  return { cw: ctx.cw, capacity };
}

/**
 * Plain ASCII encodation (digit pairs in one codeword): the fallback where the
 * look-ahead's modes fail, on data zxing could not encode at all (e.g. the
 * look-ahead choosing X12 before a character X12 lacks).
 */
function asciiCodewords(msg: Uint8Array, prefix: readonly number[]): { cw: number[]; capacity: number } {
  const cw = [...prefix];
  for (let i = 0; i < msg.length; i++) {
    const c = msg[i]!;
    if (isDigit(c) && isDigit(msg[i + 1] ?? 0)) cw.push(130 + (c - 48) * 10 + (msg[++i]! - 48));
    else cw.push(...(isExtended(c) ? [UPPER_SHIFT, c - 127] : [c + 1]));
  }
  return { cw, capacity: sizeFor(cw.length).data };
}

/** Pads codewords to the symbol's capacity: one PAD, then 253-state randomised PADs. */
function pad(cw: number[], capacity: number): number[] {
  if (cw.length < capacity) cw.push(PAD);
  while (cw.length < capacity) {
    const r = PAD + ((149 * (cw.length + 1)) % 253) + 1;
    cw.push(r <= 254 ? r : r - 254);
  }
  return cw;
}

// ---- Reed-Solomon (GF(256), polynomial 0x12d, generator roots 2^1..2^n) ---------------------------

const EXP = new Uint8Array(255);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++, x = x & 0x80 ? (x << 1) ^ 0x12d : x << 1) {
  EXP[i] = x;
  LOG[x] = i;
}
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : EXP[(LOG[a]! + LOG[b]!) % 255]!);

const generators = new Map<number, Uint8Array>();
/** Coefficients of the degree-n generator polynomial, highest degree first (its leading 1 left out). */
function generator(n: number): Uint8Array {
  let g = generators.get(n);
  if (g) return g;
  let p = [1];
  for (let i = 1; i <= n; i++) {
    const next = [...p, 0];
    for (let j = 0; j < p.length; j++) next[j + 1]! ^= mul(p[j]!, EXP[i]!);
    p = next;
  }
  g = Uint8Array.from(p.slice(1));
  generators.set(n, g);
  return g;
}

/** Data then error-correction codewords, blocks interleaved codeword by codeword. */
function withErrorCorrection(data: number[], size: SymbolSize): number[] {
  const { blocks } = size;
  const n = size.ecc / blocks;
  const g = generator(n);
  const out = [...data, ...new Array<number>(size.ecc).fill(0)];
  for (let b = 0; b < blocks; b++) {
    const rem = new Uint8Array(n);
    for (let d = b; d < data.length; d += blocks) {
      const f = data[d]! ^ rem[0]!;
      rem.copyWithin(0, 1);
      rem[n - 1] = 0;
      for (let i = 0; i < n; i++) rem[i]! ^= mul(g[i]!, f);
    }
    for (let i = 0; i < n; i++) out[data.length + b + i * blocks] = rem[i]!;
  }
  return out;
}

// ---- Module placement (Annex F) and the finder and timing patterns --------------------------------

/** The codewords' bits in the data area (nrow x ncol, without patterns), 1 = dark. */
function place(cw: number[], nrow: number, ncol: number): Uint8Array {
  const bits = new Uint8Array(nrow * ncol).fill(2); // 2: not set yet
  const mod = (row: number, col: number, pos: number, bit: number) => {
    if (row < 0) {
      row += nrow;
      col += 4 - ((nrow + 4) % 8);
    }
    if (col < 0) {
      col += ncol;
      row += 4 - ((ncol + 4) % 8);
    }
    bits[row * ncol + col] = (cw[pos]! >> (8 - bit)) & 1;
  };
  const utah = (r: number, c: number, pos: number) => {
    mod(r - 2, c - 2, pos, 1);
    mod(r - 2, c - 1, pos, 2);
    mod(r - 1, c - 2, pos, 3);
    mod(r - 1, c - 1, pos, 4);
    mod(r - 1, c, pos, 5);
    mod(r, c - 2, pos, 6);
    mod(r, c - 1, pos, 7);
    mod(r, c, pos, 8);
  };
  /** The four corner shapes: cells as row, column pairs. */
  const corner = (pos: number, cells: readonly number[]) => {
    for (let i = 0; i < 8; i++) mod(cells[2 * i]!, cells[2 * i + 1]!, pos, i + 1);
  };
  const [R, C] = [nrow, ncol];
  let pos = 0;
  let row = 4;
  let col = 0;
  do {
    if (row === R && col === 0) corner(pos++, [R - 1, 0, R - 1, 1, R - 1, 2, 0, C - 2, 0, C - 1, 1, C - 1, 2, C - 1, 3, C - 1]);
    if (row === R - 2 && col === 0 && C % 4 !== 0) corner(pos++, [R - 3, 0, R - 2, 0, R - 1, 0, 0, C - 4, 0, C - 3, 0, C - 2, 0, C - 1, 1, C - 1]);
    if (row === R - 2 && col === 0 && C % 8 === 4) corner(pos++, [R - 3, 0, R - 2, 0, R - 1, 0, 0, C - 2, 0, C - 1, 1, C - 1, 2, C - 1, 3, C - 1]);
    if (row === R + 4 && col === 2 && C % 8 === 0) corner(pos++, [R - 1, 0, R - 1, C - 1, 0, C - 3, 0, C - 2, 0, C - 1, 1, C - 3, 1, C - 2, 1, C - 1]);
    do {
      if (row < R && col >= 0 && bits[row * C + col] === 2) utah(row, col, pos++);
      row -= 2;
      col += 2;
    } while (row >= 0 && col < C);
    row++;
    col += 3;
    do {
      if (row >= 0 && col < C && bits[row * C + col] === 2) utah(row, col, pos++);
      row += 2;
      col -= 2;
    } while (row < R && col >= 0);
    row += 3;
    col++;
  } while (row < R || col < C);
  // An untouched lower right corner gets the fixed pattern.
  if (bits[R * C - 1] === 2) {
    bits[R * C - 1] = 1;
    bits[(R - 1) * C - 2] = 1;
  }
  return bits;
}

/**
 * The symbol of `data`. Text within ISO 8859-1 (all of ASCII) is encoded as
 * it is, the standard's default; other text as UTF-8 after ECI 000026.
 */
export function dataMatrix(data: string): DataMatrix {
  if (data === '') throw new RangeError('a DataMatrix needs data');
  const latin1 = !/[^\0-\xff]/.test(data);
  const msg = latin1 ? Uint8Array.from(data, (ch) => ch.charCodeAt(0)) : new TextEncoder().encode(data);
  const prefix = latin1 ? [] : [ECI, 26 + 1]; // ECI 000026 (UTF-8): ECI numbers below 127 are sent plus one
  let encoded: { cw: number[]; capacity: number };
  try {
    encoded = lookAheadCodewords(msg, prefix);
  } catch {
    encoded = asciiCodewords(msg, prefix);
  }
  const size = sizeFor(encoded.capacity);
  const cw = withErrorCorrection(pad(encoded.cw, size.data), size);
  const inner = size.region * size.regions;
  const bits = place(cw, inner, inner);
  const side = inner + 2 * size.regions;
  const dark = new Uint8Array(side * side);
  // Each region: a solid L (left column, bottom row) and alternating timing (top row, right column).
  const step = size.region + 2;
  for (let y = 0; y < side; y++) {
    const ry = y % step;
    const dataRow = (y - ry) / step * size.region + ry - 1;
    for (let x = 0; x < side; x++) {
      const rx = x % step;
      let v: number;
      if (ry === step - 1 || rx === 0) v = 1;
      else if (ry === 0) v = (x + 1) & 1;
      else if (rx === step - 1) v = ry & 1;
      else v = bits[dataRow * inner + ((x - rx) / step) * size.region + rx - 1] === 1 ? 1 : 0; // 2: a corner module placement left unset
      dark[y * side + x] = v;
    }
  }
  return { size: side, dark };
}
