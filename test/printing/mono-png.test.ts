import { crc32, deflateSync } from 'node:zlib';
import { createCanvas } from 'canvas';
import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import { decodeMonoPng, getDot } from '../../src/labels/mono-png.js';
import { assetDoc } from './fixtures.js';

/** Reference decode through jimp: black where luminance (on white) < 50%. */
async function reference(png: Buffer): Promise<boolean[][]> {
  const img = await Jimp.read(png);
  const { width, height, data } = img.bitmap;
  const out: boolean[][] = [];
  for (let y = 0; y < height; y++) {
    const row: boolean[] = [];
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const a = data[i + 3]! / 255;
      const gray = (0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!) / 255;
      row.push(gray * a + (1 - a) < 0.5);
    }
    out.push(row);
  }
  return out;
}

/** A PNG with the given layout; row y uses filter y % 5, so every filter is decoded. */
function encodeTestPng(width: number, height: number, colorType: number, depth: number, channels: number, value: (x: number, y: number) => number): Buffer {
  const bpp = Math.max(1, (channels * depth) >> 3);
  const rowBytes = Math.ceil((width * channels * depth) / 8);
  const raw = Buffer.alloc(rowBytes * height);
  const max = (1 << depth) - 1;
  for (let y = 0; y < height; y++) {
    let bit = 0;
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) {
        const isAlpha = (colorType === 4 && c === 1) || (colorType === 6 && c === 3);
        const v = isAlpha ? max : value(x, y);
        const off = y * rowBytes * 8 + bit;
        if (depth === 16) raw.writeUInt16BE(v, off >> 3);
        else if (depth === 8) raw[off >> 3] = v;
        else raw[off >> 3] = raw[off >> 3]! | (v << (8 - depth - (off & 7)));
        bit += depth;
      }
    }
  }
  const filtered = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const f = y % 5;
    filtered[y * (rowBytes + 1)] = f;
    for (let i = 0; i < rowBytes; i++) {
      const x = raw[y * rowBytes + i]!;
      const a = i >= bpp ? raw[y * rowBytes + i - bpp]! : 0;
      const b = y > 0 ? raw[(y - 1) * rowBytes + i]! : 0;
      const c = y > 0 && i >= bpp ? raw[(y - 1) * rowBytes + i - bpp]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][f]!;
      filtered[y * (rowBytes + 1) + 1 + i] = (x - pred) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colorType;
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)];
  if (colorType === 3) parts.push(chunk('PLTE', Buffer.from([0, 0, 0, 90, 90, 90, 170, 170, 170, 255, 255, 255])));
  parts.push(chunk('IDAT', deflateSync(filtered)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

async function expectSameAsJimp(png: Buffer): Promise<void> {
  const mine = decodeMonoPng(png);
  const ref = await reference(png);
  expect([mine.width, mine.height]).toEqual([ref[0]!.length, ref.length]);
  expect(mine.stride).toBe(Math.ceil(mine.width / 8));
  let diff = 0;
  for (let y = 0; y < mine.height; y++) for (let x = 0; x < mine.width; x++) if (getDot(mine, x, y) !== ref[y]![x]) diff++;
  expect(diff).toBe(0);
}

describe('decodeMonoPng', () => {
  it('decodes the label engine 1-bit PNG exactly, with padding bits cleared', async () => {
    const { png } = assetDoc('brother-ql-17x54'); // 165 wide: 5 padding bits per row
    await expectSameAsJimp(png);
    const b = decodeMonoPng(png);
    let black = 0;
    for (let y = 0; y < b.height; y++) {
      expect(b.bits[y * b.stride + b.stride - 1]! & 0x07).toBe(0);
      for (let x = 0; x < b.width; x++) if (getDot(b, x, y)) black++;
    }
    expect(black).toBeGreaterThan(1000); // a real label, not blank
  });

  it('thresholds RGBA PNGs with all filter types (canvas/libpng adaptive filtering) and composites alpha on white', async () => {
    const c = createCanvas(203, 97);
    const ctx = c.getContext('2d');
    const grad = ctx.createLinearGradient(0, 0, 203, 97);
    grad.addColorStop(0, '#000');
    grad.addColorStop(1, '#fff');
    ctx.fillStyle = grad;
    ctx.fillRect(0, 0, 203, 60);
    ctx.fillStyle = 'rgba(0,0,0,0.3)'; // light: must stay white on paper
    ctx.fillRect(10, 62, 80, 30);
    ctx.fillStyle = 'rgba(200,0,0,1)';
    ctx.font = '30px sans-serif';
    ctx.fillText('Ab3', 100, 90);
    await expectSameAsJimp(c.toBuffer('image/png'));
  });

  it.each([
    [0, 8, 1],
    [0, 16, 1],
    [0, 4, 1],
    [3, 2, 1],
    [3, 8, 1],
    [4, 8, 2],
    [2, 8, 3],
    [6, 16, 4],
  ])('decodes color type %i at %i bits, rows using all five filter types', async (colorType, depth, channels) => {
    const width = 37, height = 23;
    // Each pixel's "value" v (0..max) is gray, palette index or all channels; alpha (if any) = max.
    const max = colorType === 3 ? 3 : (1 << depth) - 1;
    const value = (x: number, y: number): number => Math.round((((x * 7 + y * 13) % 17) / 16) * max);
    const png = encodeTestPng(width, height, colorType, depth, channels, value);
    const mine = decodeMonoPng(png);
    const palette = [0, 90, 170, 255]; // gray levels of palette entries 0..3
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const v = value(x, y);
        const gray = colorType === 3 ? palette[v]! / 255 : v / max;
        expect(getDot(mine, x, y), `(${x},${y})`).toBe(gray < 0.5);
      }
    }
    if (colorType === 6) await expectSameAsJimp(png);
  });

  it('rejects what is not a PNG', () => {
    expect(() => decodeMonoPng(Buffer.from('GIF89a'))).toThrow(/not a PNG/);
    const png = assetDoc('zebra-2x1-203dpi').png;
    expect(() => decodeMonoPng(png.subarray(0, 60))).toThrow();
  });
});
