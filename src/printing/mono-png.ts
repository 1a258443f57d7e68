/**
 * PNG → 1-bit printer bitmap. Label printers want one bit per dot, 1 = burn a
 * dot (black); PNG grayscale is the opposite (0 = black). Written by hand
 * (node:zlib + the five PNG filters) so drivers need no image library; any
 * non-interlaced PNG works: 1-bit gray is converted exactly, everything else
 * is composited on white and thresholded at 50% luminance.
 */
import { inflateSync } from 'node:zlib';

export interface MonoBitmap {
  width: number;
  height: number;
  /** Bytes per row: ceil(width / 8). */
  stride: number;
  /** Rows of `stride` bytes, MSB = leftmost dot, 1 = black; padding bits are 0. */
  bits: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function emptyBitmap(width: number, height: number): MonoBitmap {
  const stride = (width + 7) >> 3;
  return { width, height, stride, bits: Buffer.alloc(stride * height) };
}

export function getDot(b: MonoBitmap, x: number, y: number): boolean {
  return ((b.bits[y * b.stride + (x >> 3)]! >> (7 - (x & 7))) & 1) === 1;
}

export function setDot(b: MonoBitmap, x: number, y: number): void {
  const i = y * b.stride + (x >> 3);
  b.bits[i] = b.bits[i]! | (0x80 >> (x & 7));
}

export function decodeMonoPng(png: Buffer): MonoBitmap {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG (bad signature)');
  let width = 0, height = 0, depth = 0, colorType = -1, interlace = 0;
  let palette: Buffer | undefined;
  const idat: Buffer[] = [];
  for (let p = 8; p + 12 <= png.length; ) {
    const len = png.readUInt32BE(p);
    const type = png.toString('latin1', p + 4, p + 8);
    const data = png.subarray(p + 8, p + 8 + len);
    if (data.length !== len) throw new Error(`PNG truncated in ${type} chunk`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8]!;
      colorType = data[9]!;
      interlace = data[12]!;
    } else if (type === 'PLTE') palette = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    p += 12 + len;
  }
  const channels = CHANNELS[colorType];
  if (!channels || width === 0 || height === 0) throw new Error('PNG has no valid IHDR');
  if (interlace !== 0) throw new Error('interlaced PNGs are not supported');
  if (colorType === 3 && !palette) throw new Error('palette PNG without PLTE');
  const bitsPerPixel = channels * depth;
  const rowBytes = Math.ceil((width * bitsPerPixel) / 8);
  const raw = unfilter(inflateSync(Buffer.concat(idat)), rowBytes, height, Math.max(1, bitsPerPixel >> 3));

  const out = emptyBitmap(width, height);
  if (colorType === 0 && depth === 1) {
    // Fast path, exact: invert (PNG 0 = black) and clear the padding bits.
    const lastMask = (0xff << ((8 - (width & 7)) & 7)) & 0xff;
    for (let y = 0; y < height; y++) {
      for (let i = 0; i < rowBytes; i++) {
        let v = ~raw[y * rowBytes + i]! & 0xff;
        if (i === rowBytes - 1) v &= lastMask;
        out.bits[y * out.stride + i] = v;
      }
    }
    return out;
  }
  const sample = sampler(raw, rowBytes, depth);
  const max = (1 << depth) - 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let gray: number; // 0..1
      let alpha = 1;
      const s = x * channels;
      if (colorType === 3) {
        const i = sample(y, x) * 3;
        gray = luma(palette![i] ?? 0, palette![i + 1] ?? 0, palette![i + 2] ?? 0) / 255;
      } else if (colorType === 0 || colorType === 4) {
        gray = sample(y, s) / max;
        if (colorType === 4) alpha = sample(y, s + 1) / max;
      } else {
        gray = luma(sample(y, s), sample(y, s + 1), sample(y, s + 2)) / max;
        if (colorType === 6) alpha = sample(y, s + 3) / max;
      }
      // Composite on white: transparent pixels must not print.
      if (gray * alpha + (1 - alpha) < 0.5) setDot(out, x, y);
    }
  }
  return out;
}

function luma(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** Returns sample number `i` of row `y` (any bit depth 1..16). */
function sampler(raw: Buffer, rowBytes: number, depth: number): (y: number, i: number) => number {
  if (depth === 8) return (y, i) => raw[y * rowBytes + i]!;
  if (depth === 16) return (y, i) => raw.readUInt16BE(y * rowBytes + i * 2);
  const perByte = 8 / depth;
  const mask = (1 << depth) - 1;
  return (y, i) => (raw[y * rowBytes + Math.floor(i / perByte)]! >> ((perByte - 1 - (i % perByte)) * depth)) & mask;
}

/** Undoes the per-row PNG filters (None, Sub, Up, Average, Paeth) in place, returning rows without filter bytes. */
function unfilter(data: Buffer, rowBytes: number, height: number, bpp: number): Buffer {
  if (data.length < (rowBytes + 1) * height) throw new Error('PNG image data is truncated');
  const out = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (rowBytes + 1)]!;
    const src = y * (rowBytes + 1) + 1;
    const row = y * rowBytes;
    const prev = row - rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const x = data[src + i]!;
      const a = i >= bpp ? out[row + i - bpp]! : 0;
      const b = y > 0 ? out[prev + i]! : 0;
      const c = y > 0 && i >= bpp ? out[prev + i - bpp]! : 0;
      let v: number;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new Error(`PNG row ${y} has unknown filter type ${filter}`);
      }
      out[row + i] = v & 0xff;
    }
  }
  return out;
}
