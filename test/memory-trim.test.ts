/**
 * malloc_trim gives back what free() leaves resident: native memory freed in the
 * middle of the heap (here by ArrayBuffers, whose bytes are malloc'd, as the render
 * threads' Cairo and Pango allocations are) stays in RSS until it is trimmed.
 */
import { describe, expect, it } from 'vitest';
import { collectGarbage, startMallocTrim } from '../src/memory-trim.js';

const MB = 1024 * 1024;
const rss = () => process.memoryUsage().rss / MB;

/**
 * `blocks` x 16 KB of native memory (under the mmap threshold, so inside malloc's heap),
 * then all but every 32nd freed: what is freed lies in the middle of the heap, never at
 * its top. Returns the blocks kept.
 */
function fragmentHeap(blocks: number): Buffer[] {
  const all = Array.from({ length: blocks }, () => Buffer.allocUnsafeSlow(16 * 1024).fill(1));
  const kept = all.filter((_, i) => i % 32 === 31);
  all.length = 0;
  collectGarbage();
  return kept;
}

const glibc = Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

describe('malloc trimming', () => {
  it('is available on this machine (Linux, glibc)', () => {
    expect(glibc).toBe(true); // the service's machines; elsewhere the tests below would say nothing
    const trimmer = startMallocTrim(0);
    expect(trimmer.available).toBe(true);
  });

  it('returns freed native memory from inside the heap to the system', async () => {
    const trimmer = startMallocTrim(0);
    const kept = fragmentHeap(10_240); // 160 MB
    await new Promise((r) => setTimeout(r, 200)); // V8 may free backing stores on a background thread
    const freedButResident = rss();
    await new Promise((r) => setTimeout(r, 300));
    const stillResident = rss();
    const ms = await trimmer.trim();
    const trimmed = rss();

    expect(kept).toHaveLength(320);
    expect(ms).toBeTypeOf('number');
    // Without a trim, free() kept it: nothing went back in the meantime.
    expect(freedButResident - stillResident).toBeLessThan(20);
    // The trim gave back most of the ~155 MB freed.
    expect(stillResident - trimmed).toBeGreaterThan(100);
  });

  it('trims on its interval, and stops', async () => {
    const trimmer = startMallocTrim(50);
    const kept = fragmentHeap(6_400); // 100 MB
    const before = rss();
    await new Promise((r) => setTimeout(r, 500));
    trimmer.stop();
    expect(kept).toHaveLength(200);
    expect(before - rss()).toBeGreaterThan(60);
  });
});
