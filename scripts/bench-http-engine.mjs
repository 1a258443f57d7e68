// The engine's own ceiling for bench-http.ts: the service's render pool (dist/, the
// same code and thread count as the service) drawing distinct item labels back to
// back, with no HTTP, store or cache. Prints "<labels per second> <threads>".
import { availableParallelism } from 'node:os';
import { builtInTemplate } from '../dist/labels/design.js';
import { poolRenderer } from '../dist/labels/render-pool.js';

const seconds = Number(process.argv[2] ?? 3);
const threads = Number(process.env.RENDER_THREADS ?? availableParallelism());
const template = builtInTemplate(process.env.LABEL_TEMPLATE ?? 'brother-ql-62x29');
const names = ['drill', 'saw', 'tape', 'box of screws'];
const pool = poolRenderer(threads);
let n = 0;
const record = () => {
  const i = n++;
  const id = `ceiling-${String(i).padStart(6, '0')}`;
  return { kind: 'item', id, name: `Bench item ${i} ${names[i % 4]}`, path: ['Garage', 'Shelf 3'], assetId: 1000 + i, url: `https://inventory.example.test/item/${id}` };
};
const run = async (until) => {
  let done = 0;
  // Two tasks a thread keep every thread busy while the main thread takes replies.
  await Promise.all(Array.from({ length: Math.max(1, threads) * 2 }, async () => {
    while (performance.now() < until) {
      await pool.render(record(), template);
      done++;
    }
  }));
  return done;
};
await run(performance.now() + 1000); // warm-up: fonts, JIT
const start = performance.now();
const done = await run(start + seconds * 1000);
console.log(`${(done / ((performance.now() - start) / 1000)).toFixed(0)} ${threads}`);
await pool.close();
