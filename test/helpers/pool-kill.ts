/**
 * Run as its own process by render-pool.test.ts: renders on a pool while its
 * worker threads are terminated at random moments (mid-render, while loading,
 * while idle), as an out-of-memory kill would. Every render must settle: the
 * right bytes, or one of the errors the service turns into a 500 or 503
 * (a render whose worker died twice; the engine restarting). None may hang,
 * and the process must not abort. After the kills the pool must draw again.
 * Prints "ok <kills> rendered=<n> failed=<n> (worker exits <n>, engine restarting <n>)".
 */
import { builtInTemplate, renderLabel } from '../../src/labels/index.js';
import { poolRenderer, RenderUnavailableError } from '../../src/labels/render-pool.js';
import { BASIC } from '../labels/samples.js';

const kills = Number(process.argv[2] ?? 40);
const seed = Number(process.argv[3] ?? 1);
const template = builtInTemplate('brother-ql-62x29')!;
const expected = BASIC.map((r) => renderLabel(r, template).png);

// A small seeded generator, so a failing run can be repeated with its seed.
let s = seed >>> 0;
const random = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const pool = poolRenderer(2);
let stop = false;
let rendered = 0;
const failed = { exits: 0, restarting: 0 };
const settles = async (p: Promise<unknown>, what: string) => {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle in 60 s`)), 60_000)));
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
};
const load = Array.from({ length: 4 }, async (_, lane) => {
  for (let n = lane; !stop; n += 4) {
    const i = n % BASIC.length;
    try {
      const r = (await settles(pool.render(BASIC[i]!, template), `render ${n}`)) as { png: Buffer };
      if (!r.png.equals(expected[i]!)) throw new Error(`render ${n} differs from the in-thread engine`);
      rendered++;
    } catch (err) {
      if (err instanceof RenderUnavailableError) failed.restarting++;
      else if (/^worker exited with code/.test((err as Error).message)) failed.exits++;
      else throw err;
      await sleep(5);
    }
  }
});
for (let k = 0; k < kills; k++) {
  if (random() < 0.75) {
    // Mostly mid-render: once the pool draws again, a few ms into its next renders.
    const before = rendered;
    const deadline = Date.now() + 45_000;
    while (rendered === before && Date.now() < deadline) await sleep(2);
    await sleep(random() * 4);
  } else {
    // Otherwise at any moment, often while a replacement worker loads the engine.
    await sleep(random() * 300);
  }
  const workers = pool.workers();
  const victim = workers[Math.floor(random() * workers.length)];
  if (victim) await victim.terminate();
}
stop = true;
await Promise.all(load);
// Healed: a render succeeds once the kills stop (after the restart pause at most).
const deadline = Date.now() + 45_000;
for (;;) {
  try {
    const r = (await settles(pool.render(BASIC[0]!, template), 'render after the kills')) as { png: Buffer };
    if (!r.png.equals(expected[0]!)) throw new Error('render after the kills differs');
    break;
  } catch (err) {
    if (!(err instanceof RenderUnavailableError) || Date.now() > deadline) throw err;
    await sleep(200);
  }
}
await pool.close();
if (rendered === 0) throw new Error('no render succeeded while workers were being killed');
// A render fails for a worker's death only when it dies twice (once is retried): fewer than the kills.
if (failed.exits >= kills) throw new Error(`${failed.exits} renders failed for ${kills} kills: the retry does not work`);
console.log(`ok ${kills} rendered=${rendered} failed=${failed.exits + failed.restarting} (worker exits ${failed.exits}, engine restarting ${failed.restarting})`);
