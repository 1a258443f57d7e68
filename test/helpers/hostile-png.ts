/**
 * PNGs built chunk by chunk, for the PNG checker's tests and the hostile-request
 * suite (test/hostile/): well-formed ones and the attacks of issue 28 (a
 * decompression bomb, a second IHDR, chunks out of order, cut short).
 */
import { createDeflate, deflateSync } from 'node:zlib';
import { pngChunk } from '../../src/labels/png.js';
import { PNG_SIGNATURE } from './png.js';

/** One chunk with a correct CRC (src/labels/png.ts). */
export const chunk = pngChunk;

export function ihdr(width: number, height: number, bitDepth = 8, colorType = 0, interlace = 0): Buffer {
  const d = Buffer.alloc(13);
  d.writeUInt32BE(width, 0);
  d.writeUInt32BE(height, 4);
  d[8] = bitDepth;
  d[9] = colorType;
  d[12] = interlace;
  return chunk('IHDR', d);
}

export const IEND = chunk('IEND');

export function png(...chunks: Buffer[]): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ...chunks]);
}

/** Filtered rows (filter byte 0) of a gray picture, `bytesPerRow` each, from `value(x, y)` per byte. */
export function rows(bytesPerRow: number, height: number, value: (i: number, y: number) => number = () => 0): Buffer {
  const raw = Buffer.alloc((bytesPerRow + 1) * height);
  for (let y = 0; y < height; y++) for (let i = 0; i < bytesPerRow; i++) raw[y * (bytesPerRow + 1) + 1 + i] = value(i, y);
  return raw;
}

/** A valid 8-bit gray PNG, `width` x `height`, black left half. */
export function grayPng(width: number, height: number): Buffer {
  return png(ihdr(width, height), chunk('IDAT', deflateSync(rows(width, height, (x) => (x < width / 2 ? 0 : 255)))), IEND);
}

/** zlib data that inflates to `bytes` zeros, made without holding them (1 GiB deflates to about 1 MiB). */
export async function zeroStream(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(1 << 20);
  for (let left = bytes; left > 0; left -= zeros.length) {
    if (!deflate.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/**
 * A legal 16-bit gray PNG of `width` x `height` (20 megapixels at 5000 x 4000: 40 MB
 * of image data in about 140 KB), a checkerboard of 32-pixel squares (filters none and up).
 */
export function gray16Png(width: number, height: number): Buffer {
  const rowBytes = width * 2;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  const row = Buffer.alloc(rowBytes);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) row.writeUInt16BE(((x >> 5) + (y >> 5)) & 1 ? 0xffff : 0x1234, x * 2);
    // Filter 0 (none) or 2 (up): with identical rows "up" leaves zeros, which the decoder must undo.
    const up = y % 32 !== 0;
    const at = y * (rowBytes + 1);
    raw[at] = up ? 2 : 0;
    if (!up) row.copy(raw, at + 1);
  }
  return png(ihdr(width, height, 16, 0), chunk('IDAT', deflateSync(raw, { level: 9 })), IEND);
}
