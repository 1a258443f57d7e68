/**
 * The structure of an uploaded PNG, checked before anything inflates it: a
 * small body can declare a huge picture, carry gigabytes of compressed zeros,
 * or hide a second header that a decoder would believe instead of the first.
 * Printed images (printing/fit-image.ts) and template logos (logo.ts) both pass
 * here first. The rules are the PNG specification's (W3C PNG, third edition,
 * sections 5.6 "Chunk ordering" and 11 "Chunk specifications"):
 * https://www.w3.org/TR/png-3/#5ChunkOrdering
 *
 * The result says exactly how many bytes the image data inflates to, so the
 * decoder can stop at that many (rawBytes): anything beyond is refused, not
 * inflated.
 */
import { crc32 } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Why a PNG was refused: not a PNG at all, larger than the limits allow, damaged
 * or against the specification's rules, or legal but not supported here.
 */
export type PngFault = 'not-png' | 'too-large' | 'damaged' | 'unsupported';

/** The upload is refused; the message says why, for the client. */
export class PngError extends Error {
  override name = 'PngError';
  constructor(readonly fault: PngFault, message: string) {
    super(message);
  }
}

export interface PngLimits {
  /** Largest width × height. */
  maxPixels?: number;
  /** Largest width or height. */
  maxSide?: number;
}

export interface PngLayout {
  width: number;
  height: number;
  bitDepth: number;
  /** 0 gray, 2 RGB, 3 palette, 4 gray + alpha, 6 RGBA. */
  colorType: number;
  interlaced: boolean;
  channels: number;
  /** Bytes per unfiltered row (without its filter byte), of the whole image when not interlaced. */
  rowBytes: number;
  /** Bytes the image data inflates to, filter bytes included: exactly this many, no more. */
  rawBytes: number;
  palette?: Buffer;
  /** The IDAT chunks' data, in order (views of the upload). */
  idat: Buffer[];
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const COLOR_NAMES: Record<number, string> = { 0: 'grayscale', 2: 'RGB', 3: 'palette', 4: 'grayscale-with-alpha', 6: 'RGBA' };

/** Ancillary chunks with a place in the order (PNG 3rd edition, table 7); any other may appear anywhere. */
const BEFORE_PLTE = new Set(['cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'cICP', 'mDCV', 'cLLI']);
const AFTER_PLTE = new Set(['bKGD', 'hIST', 'tRNS']);
const BEFORE_IDAT = new Set(['pHYs', 'sPLT', ...BEFORE_PLTE, ...AFTER_PLTE]);
const ONCE = new Set(['IHDR', 'PLTE', 'IEND', 'cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'cICP', 'mDCV', 'cLLI', 'bKGD', 'hIST', 'tRNS', 'pHYs', 'tIME', 'eXIf']);

/** Adam7 passes: x0, y0, dx, dy. */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;

export function hasPngSignature(data: Buffer): boolean {
  return data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE);
}

/** Checks every chunk of `data` (nothing is inflated) and returns the image's layout, or throws PngError. */
export function checkPng(data: Buffer, limits: PngLimits = {}): PngLayout {
  if (!hasPngSignature(data)) throw new PngError('not-png', 'not a PNG (bad signature)');
  const damaged = (why: string) => new PngError('damaged', why);
  let layout: PngLayout | undefined;
  const seen = new Set<string>();
  let idatEnded = false; // a chunk other than IDAT came after the IDATs
  for (let at = 8; ; ) {
    if (at === data.length) throw damaged(`the PNG is truncated: it ends without an IEND chunk${seen.has('IDAT') ? '' : ' (and has no image data)'}`);
    if (at + 12 > data.length) throw damaged(`the PNG is truncated inside a chunk header at byte ${at}`);
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw damaged(`the PNG has a damaged chunk at byte ${at} (its type is not four letters)`);
    if (length > 0x7fffffff) throw damaged(`the PNG's ${type} chunk declares an impossible length`);
    const end = at + 12 + length;
    if (end > data.length) throw damaged(`the PNG is truncated in its ${type} chunk (${length} bytes declared, ${data.length - at - 12} present)`);
    const body = data.subarray(at + 8, at + 8 + length);
    if (crc32(data.subarray(at + 4, at + 8 + length)) !== data.readUInt32BE(at + 8 + length)) throw damaged(`the PNG's ${type} chunk is damaged (CRC mismatch)`);

    if (!layout && type !== 'IHDR') throw damaged(`the PNG's first chunk is ${type}, not IHDR`);
    if (ONCE.has(type) && seen.has(type)) throw damaged(`the PNG has more than one ${type} chunk`);
    if (type === 'IDAT' && idatEnded) throw damaged('the PNG\'s IDAT chunks are not consecutive');
    if (type !== 'IDAT' && seen.has('IDAT')) idatEnded = true;
    if (type === 'PLTE' && seen.has('IDAT')) throw damaged('the PNG has its PLTE chunk after image data');
    if (BEFORE_PLTE.has(type) && seen.has('PLTE')) throw damaged(`the PNG has its ${type} chunk after PLTE`);
    if (BEFORE_IDAT.has(type) && seen.has('IDAT')) throw damaged(`the PNG has its ${type} chunk after image data`);
    if (AFTER_PLTE.has(type) && layout?.colorType === 3 && !seen.has('PLTE')) throw damaged(`the palette PNG has its ${type} chunk before PLTE`);
    const critical = (type.charCodeAt(0) & 0x20) === 0;
    if (critical && !['IHDR', 'PLTE', 'IDAT', 'IEND'].includes(type)) throw new PngError('unsupported', `the PNG has an unknown critical chunk ${type}`);
    seen.add(type);

    if (type === 'IHDR') {
      layout = header(body, limits);
    } else if (type === 'PLTE') {
      const l = layout!;
      if (l.colorType === 0 || l.colorType === 4) throw damaged(`a ${COLOR_NAMES[l.colorType]} PNG may not have a PLTE chunk`);
      const entries = length / 3;
      if (!Number.isInteger(entries) || entries < 1 || entries > 256) throw damaged('the PNG\'s PLTE chunk is not 1 to 256 colours of 3 bytes');
      if (l.colorType === 3 && entries > 1 << l.bitDepth) throw damaged(`the PNG's palette has ${entries} colours; ${l.bitDepth}-bit pixels index at most ${1 << l.bitDepth}`);
      l.palette = body;
    } else if (type === 'IDAT') {
      if (layout!.colorType === 3 && !layout!.palette) throw damaged('the palette PNG has no PLTE chunk before its image data');
      layout!.idat.push(body);
    } else if (type === 'IEND') {
      if (length !== 0) throw damaged('the PNG\'s IEND chunk is not empty');
      if (!seen.has('IDAT')) throw damaged('the PNG has no image data (IDAT)');
      if (end !== data.length) {
        const next = end + 8 <= data.length ? data.toString('latin1', end + 4, end + 8) : '';
        throw damaged(/^[A-Za-z]{4}$/.test(next) ? `the PNG has a ${next} chunk after IEND` : `the PNG has ${data.length - end} bytes after IEND`);
      }
      return layout!;
    } else if (type === 'tRNS' && (layout!.colorType === 4 || layout!.colorType === 6)) {
      throw damaged(`a ${COLOR_NAMES[layout!.colorType]} PNG may not have a tRNS chunk`);
    } else if (type === 'hIST' && !seen.has('PLTE')) {
      throw damaged('the PNG has an hIST chunk without a palette');
    }
    at = end;
  }
}

function header(body: Buffer, limits: PngLimits): PngLayout {
  if (body.length !== 13) throw new PngError('damaged', 'the PNG\'s IHDR chunk is not 13 bytes');
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [bitDepth, colorType, compression, filter, interlace] = [body[8]!, body[9]!, body[10]!, body[11]!, body[12]!];
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) throw new PngError('damaged', `the PNG declares an impossible size (${width} x ${height})`);
  if (!DEPTHS[colorType]?.includes(bitDepth)) throw new PngError('damaged', `the PNG declares an impossible format (colour type ${colorType}, bit depth ${bitDepth})`);
  if (compression !== 0 || filter !== 0 || interlace > 1) throw new PngError('damaged', 'the PNG declares an unknown compression, filter or interlace method');
  if (limits.maxSide !== undefined && (width > limits.maxSide || height > limits.maxSide)) {
    throw new PngError('too-large', `the PNG is ${width} x ${height} pixels; at most ${limits.maxSide} on each side are accepted`);
  }
  if (limits.maxPixels !== undefined && width * height > limits.maxPixels) {
    throw new PngError('too-large', `the image is ${width} x ${height} pixels; at most ${limits.maxPixels / 1e6} megapixels are accepted`);
  }
  const channels = CHANNELS[colorType]!;
  const bits = channels * bitDepth;
  const rowOf = (w: number) => Math.ceil((w * bits) / 8);
  let rawBytes = (rowOf(width) + 1) * height;
  if (interlace === 1) {
    rawBytes = 0;
    for (const [x0, y0, dx, dy] of ADAM7) {
      const w = Math.ceil((width - x0) / dx);
      const h = Math.ceil((height - y0) / dy);
      if (w > 0 && h > 0) rawBytes += (rowOf(w) + 1) * h;
    }
  }
  return { width, height, bitDepth, colorType, interlaced: interlace === 1, channels, rowBytes: rowOf(width), rawBytes, idat: [] };
}
