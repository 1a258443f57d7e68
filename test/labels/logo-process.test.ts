/**
 * The logo process (src/labels/logo-process.ts): a logo past its processor-time
 * limit is a LogoError and its process is gone; the next logo is drawn by a new
 * one; too many waiting logos are refused at once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { inkOf, LogoError } from '../../src/labels/logo.js';
import { LOGO_QUEUE_MAX, LogoBusyError, logoBitmap, logoProcessPid, stopLogoProcess } from '../../src/labels/logo-process.js';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const square = (side: number) => Buffer.from(`<svg ${NS} width="${side}" height="${side}"><rect width="${side / 2}" height="${side / 2}"/></svg>`);
/** Accepted by the sanitiser, but each masked shape is a full-size offscreen picture for librsvg (about 0.1 s each at this size). */
const masks = (n: number) =>
  Buffer.from(`<svg ${NS} width="50" height="100"><mask id="m"><rect width="50" height="100" fill="#fff"/></mask>${'<rect mask="url(#m)" width="50" height="100"/>'.repeat(n)}</svg>`);

/** Whether a process runs (a zombie, killed but not yet reaped by its parent, does not). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

afterAll(() => stopLogoProcess());

describe('logoBitmap in the logo process', () => {
  it('draws a logo at the height asked', async () => {
    const b = await logoBitmap(square(40), 80, 400);
    expect([b.width, b.height, inkOf(b)]).toEqual([80, 80, 40 * 40]);
  }, 60_000);

  it('stops a logo past its processor-time limit: a LogoError, its process killed, the next logo drawn by a new one', async () => {
    await logoBitmap(square(20), 20, 400); // the process is running
    const pid = logoProcessPid()!;
    expect(alive(pid)).toBe(true);
    const err = await logoBitmap(masks(200), 1772, 900, { cpuLimitMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogoError);
    expect((err as Error).message).toBe('drawing the logo took more than 0.3 s; simplify it (fewer elements or path points, no fine dash patterns)');
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(pid)).toBe(false);
    const next = await logoBitmap(square(30), 30, 400);
    expect(next.width).toBe(30);
    expect(logoProcessPid()).not.toBe(pid);
  }, 120_000);

  it('refuses at once beyond the logos allowed to wait (503), and draws those that waited', async () => {
    const slow = Array.from({ length: LOGO_QUEUE_MAX }, (_, i) => logoBitmap(masks(3 + i), 200, 400));
    const t0 = performance.now();
    const refused = await logoBitmap(square(12), 12, 400).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LogoBusyError);
    expect(performance.now() - t0).toBeLessThan(100);
    const drawn = await Promise.all(slow);
    expect(drawn.map((b) => b.height)).toEqual(Array(LOGO_QUEUE_MAX).fill(200));
  }, 120_000);

  it('gives a LogoError for an upload that cannot be a logo, from the process', async () => {
    await expect(logoBitmap(Buffer.from(`<svg ${NS} width="9" height="9"><text>hi</text></svg>`), 20, 400)).rejects.toThrow(/the SVG contains a <text> element/);
    await expect(logoBitmap(Buffer.alloc(0), 20, 400)).rejects.toThrow(LogoError);
  }, 60_000);
});
