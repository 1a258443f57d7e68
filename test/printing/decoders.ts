/**
 * Test-side readers for what the drivers send: the ZPL ^GFA graphic, the
 * Brother QL raster stream and PWG raster, each back into a MonoBitmap, plus
 * bitmap → PNG so barcodes can be decoded from what a printer would print.
 * Written independently of the encoders (from the protocol descriptions) so
 * a shared misunderstanding does not cancel out... as far as possible.
 */
import { inflateSync } from 'node:zlib';
import { encodePng1 } from '../../src/labels/png.js';
import { emptyBitmap, setDot, type MonoBitmap } from '../../src/labels/mono-png.js';

export function bitmapToPng(b: MonoBitmap): Buffer {
  const rows = Buffer.alloc((b.stride + 1) * b.height);
  for (let y = 0; y < b.height; y++) {
    rows[y * (b.stride + 1)] = 0; // filter none
    for (let i = 0; i < b.stride; i++) rows[y * (b.stride + 1) + 1 + i] = ~b.bits[y * b.stride + i]! & 0xff; // PNG: 1 = white
  }
  return encodePng1(rows, b.width, b.height);
}

/** Rows equal over the visible width (padding bits ignored). */
export function sameBitmap(a: MonoBitmap, b: MonoBitmap): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const i = y * a.stride + (x >> 3), j = y * b.stride + (x >> 3), m = 0x80 >> (x & 7);
      if ((a.bits[i]! & m) !== (b.bits[j]! & m)) return false;
    }
  }
  return true;
}

function crc16(text: string): number {
  let crc = 0;
  for (const ch of Buffer.from(text, 'latin1')) {
    crc ^= ch << 8;
    for (let k = 0; k < 8; k++) crc = (crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1) & 0xffff;
  }
  return crc;
}

export interface ZplGraphic {
  bitmap: MonoBitmap;
  printWidth: number;
  labelLength: number;
}

/** Reads ^PW, ^LL and the single ^GFA field (Z64 or hex), checking sizes and the Z64 CRC. */
export function decodeZplGraphic(zpl: string): ZplGraphic {
  if (!zpl.startsWith('^XA') || !zpl.endsWith('^XZ')) throw new Error('ZPL must be one ^XA...^XZ format');
  const pw = /\^PW(\d+)/.exec(zpl), ll = /\^LL(\d+)/.exec(zpl);
  const gf = /\^FO0,0\^GFA,(\d+),(\d+),(\d+),([^^]*)\^FS/.exec(zpl);
  if (!pw || !ll || !gf) throw new Error('ZPL lacks ^PW, ^LL or ^FO0,0^GFA...^FS');
  const total = Number(gf[1]), perRow = Number(gf[3]);
  const data = gf[4]!;
  let bits: Buffer;
  const z64 = /^:Z64:([A-Za-z0-9+/=]+):([0-9A-F]{4})$/.exec(data);
  if (z64) {
    if (crc16(z64[1]!) !== parseInt(z64[2]!, 16)) throw new Error('Z64 CRC mismatch');
    bits = inflateSync(Buffer.from(z64[1]!, 'base64'));
  } else if (/^[0-9A-F]+$/.test(data)) bits = Buffer.from(data, 'hex');
  else throw new Error('unsupported ^GFA data');
  if (bits.length !== total || total !== Number(gf[2]) || total % perRow !== 0) throw new Error(`^GFA sizes disagree (${bits.length} bytes, header ${total})`);
  const width = Number(pw[1]), height = total / perRow;
  const bitmap = emptyBitmap(width, height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if ((bits[y * perRow + (x >> 3)]! >> (7 - (x & 7))) & 1) setDot(bitmap, x, y);
  return { bitmap, printWidth: width, labelLength: Number(ll[1]) };
}

export interface QlJob {
  mediaType: number;
  widthMm: number;
  lengthMm: number;
  lines: number;
  margin: number;
  compressed: boolean;
  commands: string[];
  /** Raw head rows as received (mirrored, full head width): `g 00` lines, or a two-colour job's `w 01` (black) lines. */
  rows: Buffer[];
  /** ESC i K bit 0: the two-colour mode the red/black roll needs. */
  twoColour: boolean;
  /** A two-colour job's `w 02` (red) lines, one after each black line; empty otherwise. */
  redRows: Buffer[];
}

/** Parses a QL raster job command by command, like brother_ql's reader. */
export function parseQlRaster(data: Buffer, bytesPerRow = 90): QlJob {
  const { job, end } = readQlRaster(data, bytesPerRow);
  if (end !== data.length) throw new Error('bytes after the print command');
  return job;
}

/** The first QL raster job of a stream (as a printer on a device reads one) and where it ends; throws when the stream ends first. */
export function readQlRaster(data: Buffer, bytesPerRow = 90): { job: QlJob; end: number } {
  let p = 0;
  while (data[p] === 0x00) p++;
  if (p < 200) throw new Error(`expected 200 NUL bytes first, got ${p}`);
  const job: QlJob = { mediaType: -1, widthMm: -1, lengthMm: -1, lines: -1, margin: -1, compressed: false, commands: [], rows: [], twoColour: false, redRows: [] };
  for (;;) {
    if (p >= data.length) throw new Error('raster ends without a print command');
    const b = data[p]!;
    if (b === 0x1a) {
      job.commands.push('print');
      if (job.twoColour && job.redRows.length !== job.rows.length) throw new Error('a black line without its red line');
      return { job, end: p + 1 };
    }
    if (b === 0x1b && data[p + 1] === 0x40) {
      job.commands.push('init');
      p += 2;
    } else if (b === 0x1b && data[p + 1] === 0x69) {
      const c = String.fromCharCode(data[p + 2]!);
      const arg = data.subarray(p + 3);
      const len = ({ a: 1, z: 10, M: 1, A: 1, K: 1, d: 2 } as Record<string, number>)[c];
      if (len === undefined) throw new Error(`unknown command ESC i ${c}`);
      job.commands.push(`ESC i ${c} ${[...arg.subarray(0, len)].map((v) => v.toString(16).padStart(2, '0')).join(' ')}`);
      if (c === 'z') {
        job.mediaType = arg[1]!;
        job.widthMm = arg[2]!;
        job.lengthMm = arg[3]!;
        job.lines = arg.readUInt32LE(4);
      }
      if (c === 'd') job.margin = arg.readUInt16LE(0);
      if (c === 'K') job.twoColour = (arg[0]! & 0x01) !== 0;
      p += 3 + len;
    } else if (b === 0x4d) {
      job.compressed = data[p + 1] === 0x02;
      job.commands.push(`M ${data[p + 1]}`);
      p += 2;
    } else if (b === 0x67 && data[p + 1] === 0x00) {
      const n = data[p + 2]!;
      const payload = data.subarray(p + 3, p + 3 + n);
      const row = job.compressed ? unpackBits(payload) : Buffer.from(payload);
      if (row.length !== bytesPerRow) throw new Error(`raster row of ${row.length} bytes, expected ${bytesPerRow}`);
      if (job.twoColour) throw new Error('a g 00 raster line in a two-colour job');
      job.rows.push(row);
      p += 3 + n;
    } else if (b === 0x77 && (data[p + 1] === 0x01 || data[p + 1] === 0x02)) {
      // w 01 n: black line; w 02 n: red line, which must follow its black line.
      if (!job.twoColour) throw new Error('a w raster line without two-colour mode (ESC i K bit 0)');
      const red = data[p + 1] === 0x02;
      if (red !== (job.rows.length === job.redRows.length + 1)) throw new Error(`raster lines out of order at ${p}: black then red for every row`);
      const n = data[p + 2]!;
      const payload = data.subarray(p + 3, p + 3 + n);
      const row = job.compressed ? unpackBits(payload) : Buffer.from(payload);
      if (row.length !== bytesPerRow) throw new Error(`raster row of ${row.length} bytes, expected ${bytesPerRow}`);
      (red ? job.redRows : job.rows).push(row);
      p += 3 + n;
    } else throw new Error(`unknown byte 0x${b.toString(16)} at ${p}`);
  }
}

function unpackBits(src: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < src.length; ) {
    const n = src[i++]!;
    if (n < 128) {
      out.push(...src.subarray(i, i + n + 1));
      i += n + 1;
    } else if (n > 128) {
      out.push(...Array<number>(257 - n).fill(src[i++]!));
    }
  }
  return Buffer.from(out);
}

/** Undoes the mirroring and the right offset: the label's own bitmap. Dots outside it must be blank. */
export function qlRowsToBitmap(rows: Buffer[], width: number, offset: number): MonoBitmap {
  const bitmap = emptyBitmap(width, rows.length);
  rows.forEach((row, y) => {
    const head = row.length * 8;
    for (let p = 0; p < head; p++) {
      if (!((row[p >> 3]! >> (7 - (p & 7))) & 1)) continue;
      const x = offset + width - 1 - p;
      if (x < 0 || x >= width) throw new Error(`dot outside the label at head position ${p}, row ${y}`);
      setDot(bitmap, x, y);
    }
  });
  return bitmap;
}

export interface PwgPage {
  width: number;
  height: number;
  dpi: number;
  bitsPerPixel: number;
  colorSpace: number;
  bitmap: MonoBitmap;
}

/** Reads a one-page PWG raster file (RaS2, 1796-byte header, RLE lines). */
export function decodePwgRaster(data: Buffer): PwgPage {
  if (data.toString('latin1', 0, 4) !== 'RaS2') throw new Error('not PWG raster');
  const h = data.subarray(4, 4 + 1796);
  if (h.toString('latin1', 0, 9) !== 'PwgRaster') throw new Error('MediaClass is not PwgRaster');
  const width = h.readUInt32BE(372), height = h.readUInt32BE(376);
  const bitsPerPixel = h.readUInt32BE(388), bytesPerLine = h.readUInt32BE(392), colorSpace = h.readUInt32BE(400);
  const unit = Math.max(1, bitsPerPixel >> 3);
  const bitmap = emptyBitmap(width, height);
  let p = 4 + 1796;
  let y = 0;
  while (y < height) {
    const repeat = data[p++]! + 1;
    const line: number[] = [];
    while (line.length < bytesPerLine) {
      const n = data[p++]!;
      if (n === undefined) throw new Error('PWG data truncated');
      if (n < 128) {
        const px = data.subarray(p, p + unit);
        p += unit;
        for (let k = 0; k <= n; k++) line.push(...px);
      } else if (n > 128) {
        const count = (257 - n) * unit;
        line.push(...data.subarray(p, p + count));
        p += count;
      } else throw new Error('PWG control byte 128');
    }
    if (line.length !== bytesPerLine) throw new Error(`PWG line overflows (${line.length} > ${bytesPerLine})`);
    for (let r = 0; r < repeat; r++, y++) {
      for (let x = 0; x < width; x++) {
        const black = bitsPerPixel === 1 ? ((line[x >> 3]! >> (7 - (x & 7))) & 1) === 1 : line[x]! < 128;
        if (black) setDot(bitmap, x, y);
      }
    }
  }
  if (p !== data.length) throw new Error(`${data.length - p} bytes after the last line`);
  return { width, height, dpi: h.readUInt32BE(276), bitsPerPixel, colorSpace, bitmap };
}

/** Nearest-neighbour downscale by an integer factor (to compare an upscaled raster with its source). */
export function downscale(b: MonoBitmap, f: number): MonoBitmap {
  const out = emptyBitmap(b.width / f, b.height / f);
  for (let y = 0; y < out.height; y++) for (let x = 0; x < out.width; x++) if ((b.bits[y * f * b.stride + ((x * f) >> 3)]! >> (7 - ((x * f) & 7))) & 1) setDot(out, x, y);
  return out;
}
