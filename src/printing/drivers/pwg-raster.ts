/**
 * PWG Raster (PWG 5102.4), the one image format every IPP Everywhere printer
 * must accept (PNG is optional). A file is "RaS2", then per page a 1796-byte
 * big-endian header (the CUPS v2 page header layout) and the lines, each
 * compressed as: a line-repeat count, then runs (0..127: next pixel n+1
 * times) and literals (129..255: 257-n pixels follow). For depths under
 * 8 bits the compression unit is one byte.
 */
import { getDot, type MonoBitmap } from '../../labels/index.js';

/** black_1: 1 bit, 1 = black (what thermal printers want); sgray_8: 8 bits, 0 = black (required of every IPP Everywhere printer). */
export type PwgType = 'black_1' | 'sgray_8';

export interface PwgOptions {
  type: PwgType;
  /** Resolution the raster is declared at, in dpi. */
  dpi: number;
  /** Integer upscale (each dot becomes scale x scale pixels) when the printer lacks the label's own resolution. */
  scale?: number;
}

export const PWG_HEADER_BYTES = 1796;

// Offsets of the fields we set, in the CUPS page header v2 layout.
const OFF = {
  mediaClass: 0,
  hwResolution: 276,
  numCopies: 340,
  pageSize: 352,
  width: 372,
  height: 376,
  bitsPerColor: 384,
  bitsPerPixel: 388,
  bytesPerLine: 392,
  colorSpace: 400,
  numColors: 420,
  totalPageCount: 452, // cupsInteger[0]
  crossFeedTransform: 456, // cupsInteger[1]
  feedTransform: 460, // cupsInteger[2]
  imageBox: 464, // cupsInteger[3..6]: left, top, right, bottom
  alternatePrimary: 480, // cupsInteger[7]
} as const;

const COLOR_SPACE = { black_1: 3, sgray_8: 18 } as const;

export function encodePwgRaster(bitmap: MonoBitmap, opts: PwgOptions): Buffer {
  const scale = opts.scale ?? 1;
  const width = bitmap.width * scale;
  const height = bitmap.height * scale;
  const dpi = opts.dpi * scale;
  const bits = opts.type === 'black_1' ? 1 : 8;
  const bytesPerLine = bits === 1 ? (width + 7) >> 3 : width;

  const h = Buffer.alloc(PWG_HEADER_BYTES);
  h.write('PwgRaster', OFF.mediaClass, 'latin1');
  h.writeUInt32BE(dpi, OFF.hwResolution);
  h.writeUInt32BE(dpi, OFF.hwResolution + 4);
  h.writeUInt32BE(1, OFF.numCopies);
  h.writeUInt32BE(Math.round((width * 72) / dpi), OFF.pageSize); // points
  h.writeUInt32BE(Math.round((height * 72) / dpi), OFF.pageSize + 4);
  h.writeUInt32BE(width, OFF.width);
  h.writeUInt32BE(height, OFF.height);
  h.writeUInt32BE(bits, OFF.bitsPerColor);
  h.writeUInt32BE(bits, OFF.bitsPerPixel);
  h.writeUInt32BE(bytesPerLine, OFF.bytesPerLine);
  h.writeUInt32BE(COLOR_SPACE[opts.type], OFF.colorSpace);
  h.writeUInt32BE(1, OFF.numColors);
  h.writeUInt32BE(1, OFF.totalPageCount);
  h.writeUInt32BE(1, OFF.crossFeedTransform);
  h.writeUInt32BE(1, OFF.feedTransform);
  h.writeUInt32BE(width, OFF.imageBox + 8);
  h.writeUInt32BE(height, OFF.imageBox + 12);
  h.writeUInt32BE(0xffffff, OFF.alternatePrimary);

  const parts: Buffer[] = [Buffer.from('RaS2', 'latin1'), h];
  let y = 0;
  while (y < height) {
    const line = rasterLine(bitmap, Math.floor(y / scale), scale, opts.type, bytesPerLine);
    // Count how many following output lines are identical (at most 255 extra).
    let repeat = 1;
    while (y + repeat < height && repeat < 256 && sameSourceLine(bitmap, y, y + repeat, scale)) repeat++;
    parts.push(Buffer.from([repeat - 1]), compressLine(line));
    y += repeat;
  }
  return Buffer.concat(parts);
}

function sameSourceLine(b: MonoBitmap, y1: number, y2: number, scale: number): boolean {
  const s1 = Math.floor(y1 / scale), s2 = Math.floor(y2 / scale);
  if (s1 === s2) return true;
  return b.bits.subarray(s1 * b.stride, (s1 + 1) * b.stride).equals(b.bits.subarray(s2 * b.stride, (s2 + 1) * b.stride));
}

function rasterLine(b: MonoBitmap, sy: number, scale: number, type: PwgType, bytesPerLine: number): Buffer {
  if (type === 'black_1' && scale === 1) return b.bits.subarray(sy * b.stride, (sy + 1) * b.stride);
  const line = Buffer.alloc(bytesPerLine, type === 'sgray_8' ? 0xff : 0x00);
  for (let x = 0; x < b.width; x++) {
    if (!getDot(b, x, sy)) continue;
    for (let k = 0; k < scale; k++) {
      const ox = x * scale + k;
      if (type === 'sgray_8') line[ox] = 0x00;
      else line[ox >> 3] = line[ox >> 3]! | (0x80 >> (ox & 7));
    }
  }
  return line;
}

/** PWG/CUPS v2 run-length coding of one line, one byte per unit. */
export function compressLine(line: Buffer): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < line.length) {
    let run = 1;
    while (i + run < line.length && run < 128 && line[i + run] === line[i]) run++;
    if (run >= 2) {
      out.push(run - 1, line[i]!);
      i += run;
      continue;
    }
    const start = i;
    while (i < line.length && i - start < 128 && !(i + 1 < line.length && line[i] === line[i + 1])) i++;
    const n = i - start;
    out.push(n === 1 ? 0 : 257 - n, ...line.subarray(start, i)); // a single pixel is a run of 1
  }
  return Buffer.from(out);
}
