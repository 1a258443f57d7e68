/**
 * The service for bench-store-writes.ts, with its SQLite writes on the writer thread
 * (BENCH_WRITES=thread, as the service runs) or on the event loop (BENCH_WRITES=inline,
 * the way every write ran before the writer thread). Logs off: the bench measures the
 * store. Answers 'stats' on its IPC channel: the main thread's event-loop utilisation
 * and delay since the last 'stats'.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/records/index.js';

const writes = process.env.BENCH_WRITES === 'inline' ? 'inline' : 'thread';
const config = loadConfig();
const store = await openStore(config.databaseUrl, { writes });
const running = await startServer({ config, store, logger: pino({ level: 'silent' }) });

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let elu = performance.eventLoopUtilization();
process.on('message', (m) => {
  if (m !== 'stats') return;
  const eluNow = performance.eventLoopUtilization();
  process.send!({
    elu: performance.eventLoopUtilization(eluNow, elu).utilization,
    delayP99Ms: delay.percentile(99) / 1e6,
    delayMaxMs: delay.max / 1e6,
  });
  elu = eluNow;
  delay.reset();
});
process.on('SIGTERM', () => {
  void running.close(1000).then(() => process.exit(0));
});
console.log(`listening ${running.url}`);
