import { describe, expect, it } from 'vitest';
import { builtInTemplate, renderLabel, type LabelRecord } from '../../src/labels/index.js';
import { release } from '../../src/labels/release.js';

describe('release', () => {
  it('frees a buffer that owns its memory at once', () => {
    const before = process.memoryUsage().arrayBuffers;
    const big = Buffer.alloc(8 << 20, 1);
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThanOrEqual(8 << 20);
    release(big);
    expect(big.buffer.byteLength).toBe(0);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });

  it('leaves a view of a shared buffer alone (Node pools small buffers)', () => {
    const small = Buffer.from('pooled');
    const shared = new Uint8Array(new ArrayBuffer(16), 4, 8);
    release(small);
    release(shared);
    expect(small.toString()).toBe('pooled');
    expect(shared.buffer.byteLength).toBe(16);
  });

  it('renders leave no raster behind for the garbage collector', () => {
    const template = builtInTemplate('brother-ql-62x29')!;
    const label = (i: number): LabelRecord => ({ kind: 'item', id: `r-${i}`, name: `Item ${i} drill`, path: ['Garage', 'Shelf 3'], assetId: 1000 + i, url: `https://inventory.example.test/item/r-${i}` });
    renderLabel(label(0), template); // fonts, canvases, JIT
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    for (let i = 1; i <= 200; i++) {
      renderLabel(label(i), template);
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    }
    // Each render's raster (~250 KB) and scanlines (~30 KB) used to wait for a collection:
    // 12-13 MB at the peak here (6-7 MB in the service's threads). Left: deflate's 16 KB output buffers and the PNGs, 4-5 MB.
    expect(peak).toBeLessThan(8 << 20);
  });
});
