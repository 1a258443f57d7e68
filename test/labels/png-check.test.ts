/**
 * The PNG structure check (src/labels/png-check.ts) that every PNG upload passes
 * before anything inflates it, and the decoder's bound on what it inflates
 * (src/printing/mono-png.ts): the attacks of issue 28 and the rules of the PNG
 * specification's chunk order.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkPng, PngError } from '../../src/labels/png-check.js';
import { decodeMonoPng, decodeMonoPngStreaming } from '../../src/labels/mono-png.js';
import { chunk, grayPng, IEND, ihdr, png, rows, zeroStream } from '../helpers/hostile-png.js';

const LIMITS = { maxPixels: 20_000_000 };
const idat = (width: number, height: number) => chunk('IDAT', deflateSync(rows(width, height)));
const PLTE = chunk('PLTE', Buffer.from([0, 0, 0, 255, 255, 255]));

/** The PngError `data` is refused with (fails the test when it is accepted). */
function refusal(data: Buffer): PngError {
  try {
    checkPng(data, LIMITS);
  } catch (err) {
    if (err instanceof PngError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('checkPng', () => {
  it('accepts a well-formed PNG and says exactly how much its image data inflates to', () => {
    const l = checkPng(png(ihdr(10, 3), chunk('tEXt', Buffer.from('Comment\0hi')), idat(10, 3), idat(0, 0), IEND), LIMITS);
    expect(l).toMatchObject({ width: 10, height: 3, bitDepth: 8, colorType: 0, rowBytes: 10, rawBytes: 33, interlaced: false });
    expect(l.idat).toHaveLength(2);
    const rgba16 = checkPng(png(ihdr(3, 2, 16, 6), idat(24, 2), IEND));
    expect(rgba16.rawBytes).toBe((3 * 8 + 1) * 2);
    // Interlaced 8 x 8 at 1 bit: the seven passes are 1x1, 1x1, 2x1, 2x2, 4x2, 4x4, 8x4 pixels, each row 1 byte and a filter byte.
    expect(checkPng(png(ihdr(8, 8, 1, 0, 1), idat(1, 1), IEND)).rawBytes).toBe(2 * (1 + 1 + 1 + 2 + 2 + 4 + 4));
  });

  it('refuses what is not a PNG as not-png', () => {
    expect(refusal(Buffer.from('GIF89a....')).fault).toBe('not-png');
  });

  it('reads the size from the only IHDR: a second one (the pixel-limit bypass) is refused', () => {
    const e = refusal(png(ihdr(1, 1), ihdr(12_000, 12_000), idat(1, 1), IEND));
    expect([e.fault, e.message]).toEqual(['damaged', 'the PNG has more than one IHDR chunk']);
  });

  it('refuses a declared size over the limit before any chunk after IHDR is read', () => {
    const e = refusal(png(ihdr(12_000, 12_000), Buffer.from('anything at all')));
    expect([e.fault, e.message]).toEqual(['too-large', 'the image is 12000 x 12000 pixels; at most 20 megapixels are accepted']);
    expect(() => checkPng(png(ihdr(5000, 1), idat(1, 1), IEND), { maxSide: 4096 })).toThrow(/at most 4096 on each side/);
  });

  it.each([
    ['IDAT after IEND', png(ihdr(1, 1), idat(1, 1), IEND, idat(1, 1)), /a IDAT chunk after IEND/],
    ['bytes after IEND', png(ihdr(1, 1), idat(1, 1), IEND, Buffer.from([1, 2, 3])), /3 bytes after IEND/],
    ['IHDR not first', png(chunk('tEXt', Buffer.from('a\0b')), ihdr(1, 1), idat(1, 1), IEND), /first chunk is tEXt, not IHDR/],
    ['IDATs not consecutive', png(ihdr(1, 1), idat(1, 1), chunk('tEXt', Buffer.from('a\0b')), idat(0, 0), IEND), /IDAT chunks are not consecutive/],
    ['PLTE after IDAT', png(ihdr(1, 1, 8, 2), idat(3, 1), PLTE, IEND), /PLTE chunk after image data/],
    ['PLTE in a gray PNG', png(ihdr(1, 1), PLTE, idat(1, 1), IEND), /grayscale PNG may not have a PLTE/],
    ['palette PNG without PLTE', png(ihdr(1, 1, 8, 3), idat(1, 1), IEND), /no PLTE chunk/],
    ['palette larger than its bit depth', png(ihdr(1, 1, 1, 3), chunk('PLTE', Buffer.alloc(9)), idat(1, 1), IEND), /3 colours; 1-bit pixels index at most 2/],
    ['gAMA after PLTE', png(ihdr(1, 1, 8, 3), PLTE, chunk('gAMA', Buffer.alloc(4)), idat(1, 1), IEND), /gAMA chunk after PLTE/],
    ['tRNS before PLTE', png(ihdr(1, 1, 8, 3), chunk('tRNS', Buffer.alloc(1)), PLTE, idat(1, 1), IEND), /tRNS chunk before PLTE/],
    ['pHYs after IDAT', png(ihdr(1, 1), idat(1, 1), chunk('pHYs', Buffer.alloc(9)), IEND), /pHYs chunk after image data/],
    ['two gAMA', png(ihdr(1, 1), chunk('gAMA', Buffer.alloc(4)), chunk('gAMA', Buffer.alloc(4)), idat(1, 1), IEND), /more than one gAMA/],
    ['tRNS with alpha', png(ihdr(1, 1, 8, 6), chunk('tRNS', Buffer.alloc(6)), idat(4, 1), IEND), /RGBA PNG may not have a tRNS/],
    ['no IDAT', png(ihdr(1, 1), IEND), /no image data/],
    ['no IEND', png(ihdr(1, 1), idat(1, 1)), /ends without an IEND/],
    ['cut inside a chunk', png(ihdr(1, 1), idat(1, 1), IEND).subarray(0, 46), /truncated in its IDAT chunk/],
    ['cut inside a chunk header', png(ihdr(1, 1), idat(1, 1), IEND).subarray(0, 37), /truncated inside a chunk header/],
    ['a bad CRC', (() => { const p = png(ihdr(1, 1), idat(1, 1), IEND); p[p.length - 20]! ^= 1; return p; })(), /IDAT chunk is damaged \(CRC mismatch\)/],
    ['an impossible chunk length', png(ihdr(1, 1), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x49, 0x44, 0x41, 0x54]), Buffer.alloc(8)), /impossible length/],
    ['a chunk type that is not letters', png(ihdr(1, 1), chunk('ID@T', Buffer.alloc(1)), IEND), /type is not four letters/],
    ['an impossible format', png(ihdr(1, 1, 16, 3), idat(1, 1), IEND), /colour type 3, bit depth 16/],
    ['zero width', png(ihdr(0, 1), idat(1, 1), IEND), /impossible size \(0 x 1\)/],
    ['an IHDR of the wrong length', png(chunk('IHDR', Buffer.alloc(12)), idat(1, 1), IEND), /IHDR chunk is not 13 bytes/],
    ['an unknown critical chunk', png(ihdr(1, 1), chunk('ZZZZ', Buffer.alloc(1)), idat(1, 1), IEND), /unknown critical chunk ZZZZ/],
  ])('refuses %s, saying so', (_name, data, message) => {
    const e = refusal(data);
    expect(e.message).toMatch(message);
    expect(e.fault).not.toBe('not-png');
  });

  it('ignores unknown ancillary chunks wherever they are', () => {
    expect(checkPng(png(ihdr(1, 1), chunk('prVt', Buffer.alloc(3)), idat(1, 1), chunk('tIME', Buffer.alloc(7)), chunk('zzZz'), IEND)).width).toBe(1);
  });
});

describe('decodeMonoPng: inflating is bounded by the header', () => {
  it('refuses a 1 x 1 PNG carrying 1 GiB of compressed zeros after the first chunk of output, in either decoder', async () => {
    const bomb = png(ihdr(1, 1), chunk('IDAT', await zeroStream(1 << 30)), IEND);
    expect(bomb.length).toBeLessThan(1.1 * 2 ** 20);
    const t0 = performance.now();
    expect(() => decodeMonoPng(bomb)).toThrow(/inflates to more than the 2 bytes its 1 x 1 header declares/);
    await expect(decodeMonoPngStreaming(bomb)).rejects.toThrow(/inflates to more than the 2 bytes its 1 x 1 header declares/);
    expect(performance.now() - t0).toBeLessThan(1000); // inflating 1 GiB takes seconds
  }, 60_000);

  it('refuses image data shorter than the header declares, or not zlib at all', async () => {
    const short = png(ihdr(4, 4), chunk('IDAT', deflateSync(rows(4, 3))), IEND);
    expect(() => decodeMonoPng(short)).toThrow(/cannot be inflated|truncated \(3 of 4 rows\)/);
    await expect(decodeMonoPngStreaming(short)).rejects.toThrow(/truncated \(3 of 4 rows\)/);
    const junk = png(ihdr(4, 4), chunk('IDAT', Buffer.from('not zlib data')), IEND);
    await expect(decodeMonoPngStreaming(junk)).rejects.toThrow(/cannot be inflated/);
    expect(() => decodeMonoPng(junk)).toThrow(/cannot be inflated/);
  });

  it('refuses an unknown filter type and interlaced pictures, and decodes a good one either way alike', async () => {
    const raw = rows(4, 2);
    raw[5] = 9; // row 1's filter
    await expect(decodeMonoPngStreaming(png(ihdr(4, 2), chunk('IDAT', deflateSync(raw)), IEND))).rejects.toThrow(/row 1 has unknown filter type 9/);
    await expect(decodeMonoPngStreaming(png(ihdr(8, 8, 1, 0, 1), idat(1, 1), IEND))).rejects.toThrow(/interlaced PNGs are not supported/);
    const good = grayPng(37, 5);
    const [a, b] = [decodeMonoPng(good), await decodeMonoPngStreaming(good)];
    expect(b.bits.equals(a.bits)).toBe(true);
    expect(a.bits.some((v) => v !== 0)).toBe(true);
  });
});
