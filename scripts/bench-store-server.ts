/**
 * The service for bench-store-writes.ts, with its SQLite writes on the writer thread
 * (BENCH_WRITES=thread, as the service runs) or on the event loop (BENCH_WRITES=inline,
 * as every write ran before the writer thread). Logs off: the bench measures the store.
 */
import { pino } from 'pino';
import { startServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/records/index.js';

const writes = process.env.BENCH_WRITES === 'inline' ? 'inline' : 'thread';
const config = loadConfig();
const store = await openStore(config.databaseUrl, { writes });
const running = await startServer({ config, store, logger: pino({ level: 'silent' }) });
process.on('SIGTERM', () => {
  void running.close(1000).then(() => process.exit(0));
});
console.log(`listening ${running.url}`);
