/**
 * QR codes drawn as exact dot squares. Thermal heads print whole dots, so a
 * module is always an integer number of dots; fractional modules smear into
 * uneven bars after thresholding and stop scanners.
 *
 * Speed (a label's QR is built per new URL, ~0.7 ms with QRCode.create
 * alone): the `qrcode` package does version choice, Reed-Solomon and module
 * placement from segments we give it, with a fixed mask. Two slow parts of
 * QRCode.create are done here instead: splitting the text into
 * numeric/alphanumeric/byte segments (a shortest-bits dynamic programme; qrcode
 * builds a graph and runs Dijkstra on string keys), and choosing the mask by
 * the four ISO/IEC 18004 penalty rules, scored exactly as qrcode scores them
 * but a line at a time on bit words (qr-penalty.ts).
 */
import QRCode, { type QRCodeMaskPattern, type QRCodeSegment } from 'qrcode';
import { maskPenalty } from './qr-penalty.js';

/** Modules of white around the symbol, as ISO/IEC 18004 asks. */
export const QR_QUIET_MODULES = 4;

export interface QrMatrix {
  /** Modules per side, without quiet zone. */
  size: number;
  /** size*size cells, row-major, 1 = dark. */
  dark: Uint8Array;
}

/** Error correction levels, weakest first (recovers ~7%, 15%, 25%, 30% of the symbol). */
export type QrLevel = 'L' | 'M' | 'Q' | 'H';
/** Format information bits of each level (ISO/IEC 18004 table 12). */
const LEVEL_BITS: Record<QrLevel, number> = { L: 0b01, M: 0b00, Q: 0b11, H: 0b10 };

// Labels for one record are often re-rendered (preview, then print): keep a few.
const cache = new Map<string, QrMatrix>();
const CACHE_MAX = 256;

export function qrMatrix(text: string, level: QrLevel = 'M'): QrMatrix {
  const key = level + text;
  const hit = cache.get(key);
  if (hit) return hit;
  const m = buildQr(text, level);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, m);
  return m;
}

/** 15-bit format information (BCH(15,5), XOR mask) for a level and a mask. */
export function formatBits(mask: number, level: QrLevel = 'M'): number {
  const data = (LEVEL_BITS[level] << 3) | mask;
  let d = data << 10;
  const G15 = 0b10100110111;
  for (let i = 14; i >= 10; i--) if ((d >> i) & 1) d ^= G15 << (i - 10);
  return ((data << 10) | d) ^ 0b101010000010010;
}

function maskAt(p: number, i: number, j: number): boolean {
  switch (p) {
    case 0: return (i + j) % 2 === 0;
    case 1: return i % 2 === 0;
    case 2: return j % 3 === 0;
    case 3: return (i + j) % 3 === 0;
    case 4: return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5: return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6: return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default: return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

/** Per symbol size: the modules each mask flips, and where format info goes. */
interface SizeTables {
  /** 8 arrays of size*size: 1 where mask p flips a (non-reserved) module. */
  flips: Uint8Array[];
  /** The 2 x 15 + 1 format-info cells: index into the matrix, and bit number (-1: always dark). */
  formatCells: Int32Array;
  formatBitNo: Int8Array;
}
const tables = new Map<number, SizeTables>();

function tablesFor(size: number, reserved: Uint8Array): SizeTables {
  let t = tables.get(size);
  if (t) return t;
  const flips: Uint8Array[] = [];
  for (let p = 0; p < 8; p++) {
    const f = new Uint8Array(size * size);
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) if (!reserved[r * size + c] && maskAt(p, r, c)) f[r * size + c] = 1;
    }
    flips.push(f);
  }
  // Same placement as qrcode's setupFormatInfo.
  const cells: number[] = [];
  const bitNo: number[] = [];
  for (let i = 0; i < 15; i++) {
    const vr = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    cells.push(vr * size + 8);
    bitNo.push(i);
    const hc = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    cells.push(8 * size + hc);
    bitNo.push(i);
  }
  cells.push((size - 8) * size + 8);
  bitNo.push(-1);
  t = { flips, formatCells: Int32Array.from(cells), formatBitNo: Int8Array.from(bitNo) };
  tables.set(size, t);
  return t;
}

type SegMode = 'numeric' | 'alphanumeric' | 'byte';
const MODES: readonly SegMode[] = ['numeric', 'alphanumeric', 'byte'];
/** Character count indicator bits per mode, for versions 1-9, 10-26, 27-40. */
const CCI_BITS = [
  [10, 9, 8],
  [12, 11, 16],
  [14, 13, 16],
];
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

/**
 * Splits text into segments with the fewest bits for a version class
 * (0: versions 1-9, 1: 10-26, 2: 27-40). Costs are in sixths of a bit
 * (numeric 10 bits / 3 digits, alphanumeric 11 / 2 characters, byte 8 per
 * UTF-8 byte), a new segment costs its mode and count header.
 */
export function qrSegments(text: string, versionClass: number): QRCodeSegment[] {
  const cci = CCI_BITS[versionClass]!;
  const head = [(4 + cci[0]!) * 6, (4 + cci[1]!) * 6, (4 + cci[2]!) * 6];
  const chars = Array.from(text);
  const n = chars.length;
  // from[i * 3 + m]: mode of char i-1 on the cheapest path that codes char i in mode m (-1: impossible).
  const from = new Int8Array(n * 3);
  let prev = [head[0]!, head[1]!, head[2]!];
  for (let i = 0; i < n; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    const cur = [Infinity, Infinity, Infinity];
    const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const cost = [Infinity, Infinity, bytes * 48];
    if (cp < 0x80 && ALNUM.includes(chars[i]!)) {
      cost[1] = 33;
      if (cp >= 48 && cp <= 57) cost[0] = 20;
    }
    // Continue in the same mode...
    const stay = [-1, -1, -1];
    for (let m = 0; m < 3; m++) {
      if (cost[m] === Infinity) continue;
      cur[m] = prev[m]! + cost[m]!;
      stay[m] = m;
    }
    for (let m = 0; m < 3; m++) from[i * 3 + m] = stay[m]!;
    // ...or end the previous segment (rounded up to whole bits) and start a new one here.
    if (i > 0) {
      const ends = prev.map((c) => Math.ceil(c / 6) * 6);
      for (let m = 0; m < 3; m++) {
        if (stay[m] === -1) continue;
        for (let k = 0; k < 3; k++) {
          if (k === m || !Number.isFinite(ends[k]!)) continue;
          const c = ends[k]! + head[m]! + cost[m]!;
          if (c < cur[m]!) {
            cur[m] = c;
            from[i * 3 + m] = k;
          }
        }
      }
    }
    prev = cur;
  }
  let mode = 0;
  for (let m = 1; m < 3; m++) if (prev[m]! < prev[mode]!) mode = m;
  const segs: QRCodeSegment[] = [];
  let end = n;
  for (let i = n - 1; i >= 0; i--) {
    const before = from[i * 3 + mode]!;
    if (i === 0 || before !== mode) {
      const data = chars.slice(i, end).join('');
      const m = MODES[mode]!;
      segs.push(m === 'byte' ? { mode: m, data: Buffer.from(data, 'utf8') } : { mode: m, data });
      end = i;
      mode = before;
    }
  }
  return segs.reverse();
}

/**
 * QRCode.create on our segments: the smallest version for the cheapest split.
 * Without maskPattern qrcode picks the mask itself (slowly): the reference
 * the tests hold qrMatrix to.
 */
export function createSymbol(text: string, maskPattern?: QRCodeMaskPattern, level: QrLevel = 'M'): QRCode.QRCode {
  if (text === '') throw new Error('No input text');
  for (let cls = 0; ; cls++) {
    try {
      const qr = QRCode.create(qrSegments(text, cls), { errorCorrectionLevel: level, maskPattern });
      if (qr.version <= [9, 26, 40][cls]!) return qr;
    } catch (e) {
      if (cls === 2) throw e;
    }
  }
}

function buildQr(text: string, level: QrLevel): QrMatrix {
  // Mask 0 skips qrcode's own (slow) mask search; undo it, then pick ours.
  const qr = createSymbol(text, 0, level);
  const size = qr.modules.size;
  const t = tablesFor(size, qr.modules.reservedBit);
  const base = Uint8Array.from(qr.modules.data);
  const f0 = t.flips[0]!;
  for (let i = 0; i < base.length; i++) base[i]! ^= f0[i]!;
  const work = new Uint8Array(base.length);
  let best = 0;
  let bestPenalty = Infinity;
  for (let p = 0; p < 8; p++) {
    applyMask(base, t, p, work, level);
    const penalty = maskPenalty(work, size);
    if (penalty < bestPenalty) {
      bestPenalty = penalty;
      best = p;
    }
  }
  applyMask(base, t, best, work, level);
  return { size, dark: work };
}

/** out = base with mask p applied and the format information for p. */
function applyMask(base: Uint8Array, t: SizeTables, p: number, out: Uint8Array, level: QrLevel): void {
  const f = t.flips[p]!;
  for (let i = 0; i < base.length; i++) out[i] = base[i]! ^ f[i]!;
  const bits = formatBits(p, level);
  for (let k = 0; k < t.formatCells.length; k++) {
    const b = t.formatBitNo[k]!;
    out[t.formatCells[k]!] = b < 0 ? 1 : (bits >> b) & 1;
  }
}

/**
 * Codewords of a version (ISO/IEC 18004 table 1): its modules less the function
 * patterns, finder, timing, alignment and format/version information, in bytes.
 */
function totalCodewords(version: number): number {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    modules -= (25 * align - 10) * align - 55;
    if (version >= 7) modules -= 36;
  }
  return Math.floor(modules / 8);
}

/**
 * Error correction codewords of versions 1-40 per level (ISO/IEC 18004 table 9, the
 * blocks' totals). qrcode keeps this table in private modules; the test holds it
 * to what QRCode.create fits in each version.
 */
const EC_CODEWORDS: Record<QrLevel, readonly number[]> = {
  L: [7, 10, 15, 20, 26, 36, 40, 48, 60, 72, 80, 96, 104, 120, 132, 144, 168, 180, 196, 224, 224, 252, 270, 300, 312, 336, 360, 390, 420, 450, 480, 510, 540, 570, 570, 600, 630, 660, 720, 750],
  M: [10, 16, 26, 36, 48, 64, 72, 88, 110, 130, 150, 176, 198, 216, 240, 280, 308, 338, 364, 416, 442, 476, 504, 560, 588, 644, 700, 728, 784, 812, 868, 924, 980, 1036, 1064, 1120, 1204, 1260, 1316, 1372],
  Q: [13, 22, 36, 52, 72, 96, 108, 132, 160, 192, 224, 260, 288, 320, 360, 408, 448, 504, 546, 600, 644, 690, 750, 810, 870, 952, 1020, 1050, 1140, 1200, 1290, 1350, 1440, 1530, 1590, 1680, 1770, 1860, 1950, 2040],
  H: [17, 28, 44, 64, 88, 112, 130, 156, 192, 224, 264, 308, 352, 384, 432, 480, 532, 588, 650, 700, 750, 816, 900, 960, 1050, 1110, 1200, 1260, 1350, 1440, 1530, 1620, 1710, 1800, 1890, 1980, 2100, 2220, 2310, 2430],
};

/** Data bits of our segments in a version class (mode + count headers included). */
function segmentBits(segs: QRCodeSegment[], versionClass: number): number {
  const cci = CCI_BITS[versionClass]!;
  let bits = 0;
  for (const s of segs) {
    if (s.mode === 'numeric') {
      const n = (s.data as string).length;
      bits += 4 + cci[0]! + 10 * Math.floor(n / 3) + [0, 4, 7][n % 3]!;
    } else if (s.mode === 'alphanumeric') {
      const n = (s.data as string).length;
      bits += 4 + cci[1]! + 11 * Math.floor(n / 2) + 6 * (n % 2);
    } else bits += 4 + cci[2]! + 8 * (s.data as Buffer).length;
  }
  return bits;
}

/**
 * Modules per side of the QR code of `text` at a level, from the capacity
 * tables alone (no encoding): lets layout choose the level before it encodes
 * once. Undefined when the text does not fit any version.
 */
/** Data bits of a text per version class: layout asks for several levels of the same text. */
const bitsCache = new Map<string, number[]>();

export function qrSymbolSize(text: string, level: QrLevel): number | undefined {
  let perClass = bitsCache.get(text);
  if (!perClass) {
    if (bitsCache.size >= CACHE_MAX) bitsCache.clear();
    bitsCache.set(text, (perClass = []));
  }
  for (let cls = 0; cls < 3; cls++) {
    const bits = (perClass[cls] ??= segmentBits(qrSegments(text, cls), cls));
    const [lo, hi] = [[1, 9], [10, 26], [27, 40]][cls]!;
    for (let v = lo!; v <= hi!; v++) {
      const dataBits = (totalCodewords(v) - EC_CODEWORDS[level][v - 1]!) * 8;
      if (bits <= dataBits) return v * 4 + 17;
    }
  }
  return undefined;
}
