/**
 * Run as its own process by render-pool.test.ts: starts and stops render pools
 * again and again while the main thread draws, the moments when worker threads
 * load the engine. Memory corruption there kills the process (an abort in
 * node-canvas), which the test sees as a non-zero exit. Prints "ok <rounds>".
 */
import { builtInTemplate, renderLabel } from '../../src/labels/index.js';
import { poolRenderer } from '../../src/labels/render-pool.js';
import { BASIC } from '../labels/samples.js';

const rounds = Number(process.argv[2] ?? 40);
const template = builtInTemplate('brother-ql-62x29')!;
const sample = BASIC.map((r) => ({ ...r, name: `${r.name} · שלום · 名前` }));

for (let i = 0; i < rounds; i++) {
  const pool = poolRenderer(4);
  let stop = false;
  const drawing = (async () => {
    for (let n = 0; !stop; n++) {
      renderLabel(sample[n % sample.length]!, template);
      await new Promise((r) => setImmediate(r));
    }
  })();
  await Promise.all(sample.slice(0, 8).map((r) => pool.render(r, template)));
  stop = true;
  await drawing;
  await pool.close();
  if (process.env.POOL_CHURN_VERBOSE) console.log(`round ${i + 1}`);
}
console.log(`ok ${rounds}`);
