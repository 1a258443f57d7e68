/**
 * PNG → 1-bit printer bitmap. Label printers want one bit per dot, 1 = burn a
 * dot (black); PNG grayscale is the opposite (0 = black). Written by hand
 * (node:zlib + the five PNG filters) so drivers need no image library; any
 * non-interlaced PNG works: 1-bit gray is converted exactly, everything else
 * is composited on white and thresholded at 50% luminance.
 *
 * Rows are unfiltered and thresholded one at a time as they inflate, so a
 * picture costs its 1-bit result (2.5 MB at 20 megapixels), never its full
 * inflated size (160 MB for 20 megapixels of 16-bit RGBA). Inflating stops at
 * the exact size the header declares (png-check.ts): a decompression bomb is
 * refused after one chunk of output. Why not pngjs (5.0.0, installed through
 * qrcode): a 5000 x 4000 16-bit gray picture (test/helpers/hostile-png.ts
 * gray16Png, 143 KB) on 27 November, this machine under load, peak RSS of a
 * fresh process: this decoder 0.46-0.90 s and +25 MB; the whole-buffer decode
 * it replaces 1.9-3.2 s and +80 MB; pngjs's PNG.sync.read 13.5-16.9 s and
 * +298 MB (it expands every picture to 8-bit RGBA, accepts a second IHDR, and
 * its interlaced path inflates without a limit).
 */
import { createInflate, inflateSync } from 'node:zlib';
import { checkPng, PngError, type PngLayout, type PngLimits } from './png-check.js';

export { PngError, type PngLimits } from './png-check.js';

export interface MonoBitmap {
  width: number;
  height: number;
  /** Bytes per row: ceil(width / 8). */
  stride: number;
  /** Rows of `stride` bytes, MSB = leftmost dot, 1 = black; padding bits are 0. */
  bits: Buffer;
}

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

/** Decodes a whole PNG at once (our own labels, for the printer drivers); inflating is still bounded by the header. */
export function decodeMonoPng(png: Buffer, limits: PngLimits = {}): MonoBitmap {
  const layout = decodable(png, limits);
  const rows = new RowDecoder(layout);
  let raw: Buffer;
  try {
    raw = inflateSync(layout.idat.length === 1 ? layout.idat[0]! : Buffer.concat(layout.idat), { maxOutputLength: layout.rawBytes });
  } catch (err) {
    throw inflateError(err, layout);
  }
  rows.push(raw);
  return rows.finish();
}

/**
 * The two inks of a label (a two-colour stock's palette PNG, png.ts encodePngBlackRed): the
 * black dots and the red dots, each a MonoBitmap, none in both. Red is a palette colour whose
 * red channel is at least half and green and blue under half; any other PNG has no red
 * (`red` null) and its black is decodeMonoPng's. For the drivers: our own labels, whole.
 */
export function decodeBlackRedPng(png: Buffer, limits: PngLimits = {}): { black: MonoBitmap; red: MonoBitmap | null } {
  const layout = decodable(png, limits);
  if (layout.colorType !== 3 || !paletteHasRed(layout.palette!)) return { black: decodeMonoPng(png, limits), red: null };
  const black = new RowDecoder(layout, 'black');
  const red = new RowDecoder(layout, 'red');
  let raw: Buffer;
  try {
    raw = inflateSync(layout.idat.length === 1 ? layout.idat[0]! : Buffer.concat(layout.idat), { maxOutputLength: layout.rawBytes });
  } catch (err) {
    throw inflateError(err, layout);
  }
  black.push(raw);
  red.push(raw);
  return { black: black.finish(), red: red.finish() };
}

const isRed = (r: number, g: number, b: number): boolean => r >= 128 && g < 128 && b < 128;

function paletteHasRed(palette: Uint8Array): boolean {
  for (let i = 0; i * 3 + 2 < palette.length; i++) if (isRed(palette[i * 3]!, palette[i * 3 + 1]!, palette[i * 3 + 2]!)) return true;
  return false;
}

/**
 * Decodes an upload as it inflates (zlib on libuv's thread pool, rows here between
 * chunks), never holding more than one chunk of inflated data.
 */
export async function decodeMonoPngStreaming(png: Buffer, limits: PngLimits = {}): Promise<MonoBitmap> {
  const layout = decodable(png, limits);
  const rows = new RowDecoder(layout);
  const inflate = createInflate({ chunkSize: 128 * 1024 });
  for (const part of layout.idat) inflate.write(part);
  inflate.end();
  try {
    for await (const chunk of inflate) {
      rows.push(chunk as Buffer);
      // Chunks already inflated resolve as microtasks, one after another: yield to the event
      // loop after each, so a render thread's other tasks (labels) run between them.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (err) {
    inflate.destroy();
    throw err instanceof PngError ? err : inflateError(err, layout);
  }
  return rows.finish();
}

function decodable(png: Buffer, limits: PngLimits): PngLayout {
  const layout = checkPng(png, limits);
  if (layout.interlaced) throw new PngError('unsupported', 'interlaced PNGs are not supported');
  return layout;
}

function inflateError(err: unknown, layout: PngLayout): PngError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ERR_BUFFER_TOO_LARGE') return tooMuchData(layout);
  return new PngError('damaged', `the PNG's image data cannot be inflated (${e.message})`);
}

const tooMuchData = (l: PngLayout) => new PngError('damaged', `the PNG's image data inflates to more than the ${l.rawBytes} bytes its ${l.width} x ${l.height} header declares`);

type RowConverter = (row: Uint8Array, y: number, out: MonoBitmap) => void;

/** Takes inflated bytes in pieces of any size; unfilters and thresholds each row once it is whole. */
class RowDecoder {
  private cur: Uint8Array;
  private prev: Uint8Array;
  private readonly bpp: number;
  private readonly convert: RowConverter;
  private pos = 0; // bytes of the current row received, its filter byte included
  private filter = 0;
  private y = 0;
  readonly out: MonoBitmap;

  /** `ink`: 'dark' every dot darker than 50% (red too); 'black' and 'red' a palette PNG's two inks (decodeBlackRedPng). */
  constructor(
    private readonly layout: PngLayout,
    ink: Ink = 'dark',
  ) {
    this.cur = new Uint8Array(layout.rowBytes);
    this.prev = new Uint8Array(layout.rowBytes); // the row above the first is zeros
    this.bpp = Math.max(1, (layout.channels * layout.bitDepth) >> 3);
    this.convert = converter(layout, ink);
    this.out = emptyBitmap(layout.width, layout.height);
  }

  push(chunk: Uint8Array): void {
    const stride = this.cur.length + 1;
    for (let at = 0; at < chunk.length; ) {
      if (this.y === this.layout.height) throw tooMuchData(this.layout);
      if (this.pos === 0) {
        this.filter = chunk[at++]!;
        this.pos = 1;
      }
      const n = Math.min(stride - this.pos, chunk.length - at);
      this.cur.set(chunk.subarray(at, at + n), this.pos - 1);
      at += n;
      this.pos += n;
      if (this.pos === stride) {
        this.unfilter();
        this.convert(this.cur, this.y, this.out);
        [this.prev, this.cur] = [this.cur, this.prev];
        this.y++;
        this.pos = 0;
      }
    }
  }

  finish(): MonoBitmap {
    if (this.y < this.layout.height) throw new PngError('damaged', `the PNG's image data is truncated (${this.y} of ${this.layout.height} rows)`);
    return this.out;
  }

  /** Undoes the row's filter (None, Sub, Up, Average, Paeth) in place; Uint8Array stores wrap mod 256. */
  private unfilter(): void {
    const { cur, prev, bpp } = this;
    const n = cur.length;
    switch (this.filter) {
      case 0:
        return;
      case 1:
        for (let i = bpp; i < n; i++) cur[i] = cur[i]! + cur[i - bpp]!;
        return;
      case 2:
        for (let i = 0; i < n; i++) cur[i] = cur[i]! + prev[i]!;
        return;
      case 3:
        for (let i = 0; i < bpp && i < n; i++) cur[i] = cur[i]! + (prev[i]! >> 1);
        for (let i = bpp; i < n; i++) cur[i] = cur[i]! + ((cur[i - bpp]! + prev[i]!) >> 1);
        return;
      case 4:
        for (let i = 0; i < bpp && i < n; i++) cur[i] = cur[i]! + prev[i]!; // a = c = 0: Paeth picks b
        for (let i = bpp; i < n; i++) {
          const a = cur[i - bpp]!, b = prev[i]!, c = prev[i - bpp]!;
          const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
          cur[i] = cur[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        }
        return;
      default:
        throw new PngError('damaged', `the PNG's row ${this.y} has unknown filter type ${this.filter}`);
    }
  }
}

function luma(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

type Ink = 'dark' | 'black' | 'red';

/** An unfiltered row → its dots (1 = black) in the output row. */
function converter({ width, colorType, bitDepth: depth, channels, palette, rowBytes }: PngLayout, ink: Ink = 'dark'): RowConverter {
  if (colorType === 0 && depth === 1) {
    // Exact: invert (PNG 0 = black) and clear the padding bits.
    const lastMask = (0xff << ((8 - (width & 7)) & 7)) & 0xff;
    return (row, y, out) => {
      const o = y * out.stride;
      for (let i = 0; i < rowBytes; i++) out.bits[o + i] = ~row[i]! & 0xff;
      out.bits[o + rowBytes - 1] = out.bits[o + rowBytes - 1]! & lastMask;
    };
  }
  const max = (1 << depth) - 1;
  // Sample i of a row, at any bit depth.
  const sample: (row: Uint8Array, i: number) => number =
    depth === 8 ? (row, i) => row[i]!
    : depth === 16 ? (row, i) => (row[2 * i]! << 8) | row[2 * i + 1]!
    : (row, i) => {
        const perByte = 8 / depth;
        return (row[Math.floor(i / perByte)]! >> ((perByte - 1 - (i % perByte)) * depth)) & max;
      };
  if (colorType === 3) {
    // Each palette index is dark or not once; indexes past the palette are black, as before.
    const dark = new Uint8Array(256).fill(1);
    if (ink === 'red') dark.fill(0);
    for (let i = 0; i * 3 + 2 < palette!.length; i++) {
      const [r, g, b] = [palette![i * 3]!, palette![i * 3 + 1]!, palette![i * 3 + 2]!];
      dark[i] = ink === 'red' ? Number(isRed(r, g, b)) : ink === 'black' && isRed(r, g, b) ? 0 : luma(r, g, b) / 255 < 0.5 ? 1 : 0;
    }
    return (row, y, out) => {
      for (let x = 0; x < width; x++) if (dark[sample(row, x)]) setDot(out, x, y);
    };
  }
  return (row, y, out) => {
    for (let x = 0; x < width; x++) {
      const s = x * channels;
      let gray: number; // 0..1
      let alpha = 1;
      if (colorType === 0 || colorType === 4) {
        gray = sample(row, s) / max;
        if (colorType === 4) alpha = sample(row, s + 1) / max;
      } else {
        gray = luma(sample(row, s), sample(row, s + 1), sample(row, s + 2)) / max;
        if (colorType === 6) alpha = sample(row, s + 3) / max;
      }
      // Composite on white: transparent pixels must not print.
      if (gray * alpha + (1 - alpha) < 0.5) setDot(out, x, y);
    }
  };
}
