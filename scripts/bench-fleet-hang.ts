/**
 * One printer hanging, the others printing (issue 31): the real server (in this process, over
 * a SQLite file on tmpfs, or PostgreSQL with --pg) with N healthy raw ZPL printers (TCP sinks
 * on loopback that take a label and close) and one that takes the connection and never reads
 * nor answers. M labels are sent (print=true, named printer, round robin over the healthy
 * ones, 8 requests at a time) and the time from the first request until every label reached
 * its printer gives the healthy printers' rate, in jobs/s. Rounds alternate in the same run:
 * without the hanging printer busy, then with jobs hanging on it (its first delivery started and
 * stuck until PRINT_TIMEOUT_MS, 60 s here), and again; the figure is the ratio of the medians.
 * The status poller is off (PRINTER_STATUS_INTERVAL_S=0): with it on, the hanging printer
 * would be found not answering and its jobs held, which would hide what is measured here
 * (a delivery stuck in progress beside the others).
 *
 * Run: npm run bench:fleet-hang -- [healthy=10] [jobs=200] [rounds=3] [--pg]
 */
import { existsSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.js';
import { startTcpSink, type TcpSink } from '../test/helpers/tcp-sink.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const PG = process.argv.includes('--pg');
const HEALTHY = Number(args[0] ?? 10);
const JOBS = Number(args[1] ?? 200);
const ROUNDS = Number(args[2] ?? 3);
const PG_URL = process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { createTestSchema } = await import('../test/records/pg-test-db.js');
const schema = PG ? await createTestSchema() : undefined;
if (PG && !process.env.LABELMAKER_TEST_PG_URL) console.log(`PostgreSQL: a throwaway schema of ${PG_URL}`);
const sinks: TcpSink[] = await Promise.all(Array.from({ length: HEALTHY }, () => startTcpSink('accept')));
const hanging = await startTcpSink('hang');
const fallback = await startTcpSink('accept'); // PRINTER_URI (printing on, the printer `default`): no job goes there
if (existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm'; // the SQLite file on tmpfs: commits, not the disk, are measured
const srv = await startTestServer({
  ...(schema ? { DATABASE_URL: schema.url } : {}),
  PRINTER_URI: `socket://127.0.0.1:${fallback.port}?lang=zpl`,
  PRINTER_STATUS_INTERVAL_S: '0',
  PRINT_TIMEOUT_MS: '60000',
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

try {
  await round(); // warm-up: rendering, drivers, connections
  const alone: number[] = [];
  const beside: number[] = [];
  const stuck: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    alone.push(await round());
    // Jobs on the hanging printer: its first delivery is under way and stays stuck for the round.
    for (let i = 0; i < 3; i++) stuck.push(await print('hanging'));
    const until = Date.now() + 10_000;
    while (hanging.connections === 0 && Date.now() < until) await sleep(5);
    beside.push(await round());
  }
  // The hanging printer's first job: still being delivered (neither printed nor failed) when the rounds ended.
  const first = (await (await fetch(srv.url + stuck[0], { headers: auth })).json()) as { state: string };
  const a = median(alone);
  const b = median(beside);
  console.log(`store: ${PG ? 'PostgreSQL' : 'SQLite (tmpfs)'}; ${HEALTHY} healthy raw ZPL printers + 1 that takes the connection and never answers; ${JOBS} jobs per round, ${ROUNDS} rounds each`);
  console.log(`jobs/s to the healthy printers, alone:   ${alone.map((x) => x.toFixed(1)).join(', ')} (median ${a.toFixed(1)})`);
  console.log(`jobs/s to the healthy printers, beside:  ${beside.map((x) => x.toFixed(1)).join(', ')} (median ${b.toFixed(1)}; ${stuck.length} jobs queued on the hanging printer, connections to it: ${hanging.connections}, labels it finished: ${hanging.received().length}, its first job: ${first.state})`);
  console.log(`ratio (beside / alone): ${(b / a).toFixed(2)}x`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await srv.stop();
  await Promise.all([...sinks, hanging, fallback].map((s) => s.close()));
  await schema?.drop();
  process.exit();
}
