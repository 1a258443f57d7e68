/**
 * Run as its own process by render-pool.test.ts: labels in every script (the hostile
 * names, mixed) on every built-in template, drawn for SECONDS on the main thread and
 * on THREADS render threads at once. Many fonts at many sizes: cairo keeps opening and
 * closing FreeType faces (it keeps 10 open) while the other threads draw, which
 * without the font lock (src/labels/font-lock.ts) kills the process (SIGSEGV in cairo).
 * Prints "ok pool=<renders> main=<renders>".
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { builtInTemplate, BUILT_IN_TEMPLATE_NAMES, LabelFitError, renderLabel, type LabelRecord } from '../../src/labels/index.js';
import { poolRenderer } from '../../src/labels/render-pool.js';
import { HOSTILE, ITEM } from '../labels/samples.js';

const threads = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 30);
// A small seeded generator, so a failing run can be repeated with its seed.
let s = Number(process.argv[4] ?? 1) >>> 0;
const random = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)]!;

const names = HOSTILE.map((h) => h.record.name);
const templates = BUILT_IN_TEMPLATE_NAMES.map((n) => builtInTemplate(n)!);
let n = 0;
const next = () => {
  const record: LabelRecord = { ...ITEM, id: `churn-${n++}`, name: `${pick(names)} ${pick(names)}`.slice(0, 30 + Math.floor(random() * 50)), path: [pick(names).slice(0, 20), pick(names).slice(0, 12)] };
  return { record, template: pick(templates) };
};
const fits = (err: unknown) => {
  if (!(err instanceof LabelFitError)) throw err;
};

const pool = poolRenderer(threads);
// Render threads lower their priority (nice 10, render-worker.ts): on a busy machine they then
// hardly draw beside the main thread. Where that may be undone (root, as in CI), every thread
// of this process is put back at nice 0 (render threads as they start), so all draw at once.
const equal = setInterval(() => {
  try {
    for (const tid of readdirSync('/proc/self/task')) setPriority(Number(tid), 0);
  } catch {
    /* not permitted, or not Linux: the render threads stay at their nice */
  }
}, 100);
const end = Date.now() + seconds * 1000;
const drawn = { pool: 0, main: 0 };
const lanes = Array.from({ length: threads * 2 }, async () => {
  while (Date.now() < end) {
    const { record, template } = next();
    await pool.render(record, template).catch(fits);
    drawn.pool++;
  }
});
const main = (async () => {
  while (Date.now() < end) {
    const { record, template } = next();
    try {
      renderLabel(record, template);
    } catch (err) {
      fits(err);
    }
    drawn.main++;
    await new Promise((r) => setImmediate(r));
  }
})();
await Promise.all([...lanes, main]);
clearInterval(equal);
await pool.close();
console.log(`ok pool=${drawn.pool} main=${drawn.main}`);
