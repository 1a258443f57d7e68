import { describe, expect, it } from 'vitest';
import { compressLine, encodePwgRaster } from '../../src/printing/drivers/pwg-raster.js';
import { decodeMonoPng } from '../../src/labels/mono-png.js';
import { decodePwgRaster, downscale, sameBitmap } from './decoders.js';
import { assetDoc } from './fixtures.js';

describe('PWG raster encoder', () => {
  it('compresses runs and literals as PWG 5102.4 describes', () => {
    expect([...compressLine(Buffer.from([0, 0, 0, 5, 6, 7, 7]))]).toEqual([2, 0, 255, 5, 6, 1, 7]);
    expect([...compressLine(Buffer.from([9]))]).toEqual([0, 9]);
  });

  it.each(['black_1', 'sgray_8'] as const)('%s round-trips a label, also upscaled 2x', (type) => {
    const b = decodeMonoPng(assetDoc('brother-ql-38x90').png); // 413 wide: not a multiple of 8
    const page = decodePwgRaster(encodePwgRaster(b, { type, dpi: 300 }));
    expect([page.width, page.height, page.dpi, page.bitsPerPixel]).toEqual([413, 991, 300, type === 'black_1' ? 1 : 8]);
    expect(sameBitmap(page.bitmap, b)).toBe(true);
    const big = decodePwgRaster(encodePwgRaster(b, { type, dpi: 300, scale: 2 }));
    expect([big.width, big.height, big.dpi]).toEqual([826, 1982, 600]);
    expect(sameBitmap(downscale(big.bitmap, 2), b)).toBe(true);
  });
});
