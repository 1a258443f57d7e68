/**
 * Starts the real server on an ephemeral port over a real, temporary SQLite file,
 * with fixture records and one token per scope combination.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { startServer, type RunningServer } from '../../src/api/server.js';
import { createToken } from '../../src/commands.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openStore } from '../../src/records/index.js';
import type { RecordInput, Store } from '../../src/records/types.js';

export const PUBLIC_BASE = 'https://inventory.example.test';

export const FIXTURES: RecordInput[] = [
  { kind: 'location', id: 'garage', name: 'Garage', description: '', parentId: null, assetId: null },
  { kind: 'location', id: 'shelf-3', name: 'Shelf 3', description: '', parentId: 'garage', assetId: null },
  { kind: 'location', id: 'bin-12', name: 'Bin 12', description: 'Small parts', parentId: 'shelf-3', assetId: null },
  { kind: 'item', id: '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f', name: 'Cordless drill', description: '18 V', parentId: 'bin-12', assetId: 1 },
  { kind: 'item', id: 'tape-measure', name: 'Рулетка 5 m', description: '', parentId: 'shelf-3', assetId: 42 },
  { kind: 'item', id: 'loose-item', name: 'Unplaced thing', description: '', parentId: null, assetId: null },
];

export interface TestServer extends RunningServer {
  store: Store;
  dir: string;
  tokens: { read: string; print: string; printOnly: string; editor: string; admin: string; hooks: string; revoked: string };
  config: Config;
  stop(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}, logger: Logger = pino({ level: 'silent' }), opts: { now?: () => Date } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'labelmaker-test-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'labelmaker.db')}`,
    PUBLIC_BASE_URL: PUBLIC_BASE,
    // Labels drawn on the event loop unless a test asks for the pool: starting worker
    // threads (each loads the engine and its fonts) for every server would slow every suite.
    RENDER_THREADS: '0',
    ...env,
  });
  const store = await openStore(config.databaseUrl);
  await store.records.upsertMany(FIXTURES);
  const tokens = {
    read: (await createToken(store, 'reader', ['labels:read'])).token,
    print: (await createToken(store, 'printer', ['labels:read', 'labels:print'])).token,
    printOnly: (await createToken(store, 'print-only', ['labels:print'])).token,
    editor: (await createToken(store, 'template-editor', ['labels:read', 'templates:write'])).token,
    admin: (await createToken(store, 'printer-admin', ['labels:read', 'labels:print', 'printers:admin'])).token,
    hooks: (await createToken(store, 'webhook-admin', ['webhooks:admin'])).token,
    revoked: '',
  };
  const revoked = await createToken(store, 'revoked', ['labels:read']);
  await store.tokens.revoke(revoked.info.id);
  tokens.revoked = revoked.token;

  const running = await startServer({ config, store, logger, now: opts.now });
  return {
    ...running,
    store,
    dir,
    tokens,
    config,
    async stop() {
      await running.close(1000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
