/** While draining, the health check and new API requests answer 503 (load balancers move on). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { createApp } from '../../src/api/app.js';
import { healthHandler } from '../../src/api/health.js';
import { readinessHandler } from '../../src/api/readiness.js';
import type { Handlers } from '../../src/api/operations.js';
import { createApiRouter } from '../../src/api/router.js';
import { SPEC_PATH } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/records/index.js';
import type { Store } from '../../src/records/types.js';
import { problemErrors } from '../helpers/spec.js';

let store: Store;
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  store = await openStore('sqlite::memory:');
  const logger = pino({ level: 'silent' });
  // The real spec router with the real health operation; label operations have no handler
  // here (hence the cast: the router's type asks for all) and must never be reached while draining.
  const router = await createApiRouter({
    definition: parseYaml(readFileSync(SPEC_PATH, 'utf8')) as Document,
    tokens: store.tokens,
    handlers: { getHealth: healthHandler(store, () => true, logger), getReadiness: readinessHandler({ store, draining: () => true, logger }) } as Handlers,
    logger,
  });
  const app = createApp({
    config: loadConfig({}),
    store,
    logger,
    specYaml: '',
    specJson: '{}',
    router,
    draining: () => true,
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  await close?.();
  await store?.close();
});

describe('draining', () => {
  it.each(['/healthz', '/readyz', '/v1/labelmaker/item/x'])('%s answers 503 with Retry-After', async (path) => {
    const res = await fetch(url + path);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(problemErrors(await res.json())).toBeUndefined();
  });
});
