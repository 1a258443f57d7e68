/**
 * One printer hanging, the others printing (issue 31): the real server (in this process, over
 * a SQLite file on tmpfs, or PostgreSQL with --pg) with a fleet of N raw ZPL printers (TCP
 * sinks on loopback that take a label and close), one of which can hang: take the connection
 * and never read nor answer. Each round sends M labels (print=true, named printer, round robin
 * over the N-1 others, 8 requests at a time) and times them from the first request until every
 * label reached its printer: the others' rate, in jobs/s.
 *
 * The baseline is measured in the same run, interleaved: rounds come in pairs, one with the
 * printer answering like the others and one with a delivery stuck on it (a job sent to it, its
 * connection taken and never answered; PRINT_TIMEOUT_MS is longer than the run), the order
 * alternating from pair to pair (so a drift in the machine's load favours neither). Between
 * pairs the stuck connection is cut (the printer power-cycled); the job then retries. The figure
 * is each pair's ratio (stuck / answering), as median and range over the pairs: on a shared
 * machine the rates drift between pairs far more than within one.
 * The status poller is off (PRINTER_STATUS_INTERVAL_S=0): with it on, the hanging printer
 * would be found not answering and its jobs held, which would hide what is measured here
 * (a delivery stuck in progress beside the others).
 *
 * Run: npm run bench:fleet-hang -- [printers=100] [jobs=100] [pairs=8] [--pg] (about 1 min on SQLite, 2 on PostgreSQL, on a busy 2-core machine)
 */
import { existsSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.js';
import { startTcpSink, type TcpSink } from '../test/helpers/tcp-sink.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const PG = process.argv.includes('--pg');
const PRINTERS = Number(args[0] ?? 100);
const JOBS = Number(args[1] ?? 100);
const PAIRS = Number(args[2] ?? 8);
const PG_URL = process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HEALTHY = PRINTERS - 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { createTestSchema } = await import('../test/records/pg-test-db.js');
const schema = PG ? await createTestSchema() : undefined;
if (PG && !process.env.LABELMAKER_TEST_PG_URL) console.log(`PostgreSQL: a throwaway schema of ${PG_URL}`);
const sinks: TcpSink[] = await Promise.all(Array.from({ length: HEALTHY }, () => startTcpSink('accept')));
const hanging = await startTcpSink('accept');
const fallback = await startTcpSink('accept'); // PRINTER_URI (printing on, the printer `default`): no job goes there
if (existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm'; // the SQLite file on tmpfs: commits, not the disk, are measured
const started = performance.now();
const srv = await startTestServer({
  ...(schema ? { DATABASE_URL: schema.url } : {}),
  PRINTER_URI: `socket://127.0.0.1:${fallback.port}?lang=zpl`,
  PRINTER_STATUS_INTERVAL_S: '0',
  PRINT_TIMEOUT_MS: '600000',
  PRINT_RETRY_BASE_MS: '500',
  RATE_LIMIT_PER_MINUTE: '1000000',
  PRINT_QUOTA_PER_MINUTE: '1000000000',
});
const auth = { Authorization: `Bearer ${srv.tokens.admin}` };
const put = async (name: string, port: number) => {
  const res = await fetch(`${srv.url}/v1/labelmaker/printers/${name}`, {
    method: 'PUT',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ title: name, deviceUri: `socket://127.0.0.1:${port}?lang=zpl` }),
  });
  if (res.status !== 201) throw new Error(`PUT ${name}: ${res.status} ${await res.text()}`);
};
for (const [i, s] of sinks.entries()) await put(`p-${i}`, s.port);
await put('hanging', hanging.port);

const print = async (printer: string) => {
  const res = await fetch(`${srv.url}/v1/labelmaker/assets/000-042?print=true&printer=${printer}&template=zebra-2x1-203dpi`, { headers: auth });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`print on ${printer}: ${res.status}`);
  return res.headers.get('print-job')!;
};
const delivered = () => sinks.reduce((n, s) => n + s.received().length, 0);

/** Sends JOBS labels to the healthy printers; answers jobs/s until the last reached its printer. */
async function round(): Promise<number> {
  const start = delivered();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < JOBS) await print(`p-${next++ % HEALTHY}`);
    }),
  );
  while (delivered() < start + JOBS) await sleep(2);
  return JOBS / ((performance.now() - t0) / 1000);
}

/** Stuck: a job on the hanging printer, its connection taken and never answered. */
async function hang(): Promise<void> {
  hanging.setMode('hang');
  const before = hanging.connections;
  await print('hanging');
  const until = Date.now() + 10_000;
  while (hanging.connections === before) {
    if (Date.now() > until) throw new Error('the hanging printer was never sent its job');
    await sleep(5);
  }
}

/** Answering: the stuck connection cut, the printer taking labels again (its job retries and prints). */
function answer(): void {
  hanging.setMode('accept');
  hanging.dropConnections();
}

try {
  await round(); // warm-up: rendering, drivers, connections
  const alone: number[] = [];
  const beside: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < PAIRS; p++) {
    let a: number;
    let b: number;
    if (p % 2 === 0) {
      a = await round();
      await hang();
      b = await round();
      answer();
    } else {
      await hang();
      b = await round();
      answer();
      a = await round();
    }
    alone.push(a);
    beside.push(b);
    ratios.push(b / a);
  }
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(`store: ${PG ? 'PostgreSQL' : 'SQLite (tmpfs)'}; ${PRINTERS} raw ZPL printers, one of them hanging (or not); ${JOBS} jobs per round to the ${HEALTHY} others; ${PAIRS} pairs of rounds`);
  console.log(`jobs/s to the others, the one answering:  ${fmt(alone)} (median ${median(alone).toFixed(1)})`);
  console.log(`jobs/s to the others, the one hanging:    ${fmt(beside)} (median ${median(beside).toFixed(1)}; connections it took: ${hanging.connections})`);
  console.log(`ratio per pair (hanging / answering): ${ratios.map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`ratio: median ${median(ratios).toFixed(2)}x, range ${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}x; run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await srv.stop();
  await Promise.all([...sinks, hanging, fallback].map((s) => s.close()));
  await schema?.drop();
  process.exit();
}
