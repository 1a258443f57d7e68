/**
 * Jobs go to the right printer (issue 31): the fleet scenario (test/helpers/fleet-scenario.ts)
 * on one in-process server over a real SQLite file, and on three server processes
 * (src/main.ts, as users run it) over one real PostgreSQL schema, each request sent to the
 * next instance in turn: routing by the rule, held on the wrong roll and released when the
 * roll changes, offline and back, cancel and move, a dead printer beside a working one.
 */
import { createServer } from 'node:net';
import { createToken } from '../../src/commands.js';
import { registry } from '../../src/metrics.js';
import { openStore } from '../../src/records/index.js';
import { fleetScenario } from '../helpers/fleet-scenario.js';
import { FIXTURES, startTestServer } from '../helpers/server.js';
import { killHard, startService } from '../helpers/service.js';
import { createTestSchema } from '../records/pg-test-db.js';

const INSTANCES = 3;

fleetScenario('the printer fleet on SQLite (one in-process server)', async (env) => {
  const srv = await startTestServer(env);
  return { urls: [srv.url], tokens: srv.tokens, metrics: () => registry.metrics(), stop: () => srv.stop() };
});

/** A free loopback port (for each instance's metrics listener). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

fleetScenario(`the printer fleet on ${INSTANCES} server processes over one PostgreSQL database`, async (env) => {
  const schema = await createTestSchema();
  const store = await openStore(schema.url);
  await store.records.upsertMany(FIXTURES);
  const tokens = {
    print: (await createToken(store, 'printer', ['labels:read', 'labels:print'])).token,
    printOnly: (await createToken(store, 'print-only', ['labels:print'])).token,
    admin: (await createToken(store, 'printer-admin', ['labels:read', 'labels:print', 'printers:admin'])).token,
  };
  await store.close();
  const metricsPort = await freePort();
  const instances = await Promise.all(
    Array.from({ length: INSTANCES }, (_, i) =>
      startService({ DATABASE_URL: schema.url, RENDER_THREADS: '0', ...(i === 0 ? { METRICS_LISTEN: `127.0.0.1:${metricsPort}` } : {}), ...env }, { startMs: 120_000 }),
    ),
  );
  return {
    urls: instances.map((s) => s.url),
    tokens,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    async stop() {
      for (const s of instances) await killHard(s.child);
      await schema.drop();
    },
  };
});
