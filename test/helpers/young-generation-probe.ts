// Run as `node --max-semi-space-size=4 --import tsx young-generation-probe.ts [clear]`:
// prints the new-space sizes (MB) of the main thread and of a worker that asks for a
// 3 MB young generation, after each has churned through short-lived objects.
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { leaveYoungGenerationsToWorkers } from '../../src/worker-heaps.js';

const CHURN = `let a = []; for (let i = 0; i < 2e6; i++) { a.push({ i, s: 'x' + i }); if (a.length > 5000) a = []; }`;
const newSpaceMb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size / 2 ** 20;

if (process.argv.includes('clear')) leaveYoungGenerationsToWorkers();
const worker = new Worker(
  `${CHURN}; const v8 = require('node:v8'); require('node:worker_threads').parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20);`,
  { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 3 } },
);
const workerMb = await new Promise<number>((resolve) => worker.once('message', resolve));
new Function(CHURN)();
console.log(JSON.stringify({ main: newSpaceMb(), worker: workerMb }));
