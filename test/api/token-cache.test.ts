/**
 * The verified-token cache (token-cache.ts) over a real SQLite store: a token is
 * looked up once per TTL, a token revoked through the cached store is refused at
 * once, one revoked behind its back (the CLI, another instance) within the TTL,
 * and unknown tokens are never remembered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { authenticate } from '../../src/api/auth.js';
import { cachedTokens } from '../../src/api/token-cache.js';
import { openStore } from '../../src/records/index.js';
import type { Store, TokenStore } from '../../src/records/types.js';

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-token-cache-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store's tokens, counting the lookups that reach it. */
function counted(tokens: TokenStore) {
  const counter = { lookups: 0 };
  const view: TokenStore = {
    ...tokens,
    findActiveByHash: (hash) => {
      counter.lookups++;
      return tokens.findActiveByHash(hash);
    },
  };
  return { view, counter };
}

describe('cachedTokens', () => {
  it('asks the store once per TTL for a valid token', async () => {
    const { token } = await createToken(store, 'cached', ['labels:read']);
    const { view, counter } = counted(store.tokens);
    let clock = 0;
    const tokens = cachedTokens(view, 1000, () => clock);
    for (let i = 0; i < 50; i++) expect((await authenticate(`Bearer ${token}`, tokens)).name).toBe('cached');
    expect(counter.lookups).toBe(1);
    clock = 1001;
    await authenticate(`Bearer ${token}`, tokens);
    expect(counter.lookups).toBe(2);
  });

  it('refuses a token revoked through it at once, and one revoked elsewhere after the TTL', async () => {
    let clock = 0;
    const tokens = cachedTokens(store.tokens, 1000, () => clock);
    const here = await createToken(store, 'revoked-here', ['labels:read']);
    await authenticate(`Bearer ${here.token}`, tokens);
    await tokens.revoke(here.info.id);
    await expect(authenticate(`Bearer ${here.token}`, tokens)).rejects.toThrow(/unknown or has been revoked/);

    const elsewhere = await createToken(store, 'revoked-elsewhere', ['labels:read']);
    await authenticate(`Bearer ${elsewhere.token}`, tokens);
    await store.tokens.revoke(elsewhere.info.id); // behind the cache's back
    clock = 999;
    expect((await authenticate(`Bearer ${elsewhere.token}`, tokens)).name).toBe('revoked-elsewhere');
    clock = 1001;
    await expect(authenticate(`Bearer ${elsewhere.token}`, tokens)).rejects.toThrow(/unknown or has been revoked/);
  });

  it('never remembers unknown tokens, and TTL 0 asks every time', async () => {
    const { view, counter } = counted(store.tokens);
    const tokens = cachedTokens(view, 1000);
    const unknown = `lm_aaaaaaaa_${'A'.repeat(43)}`;
    for (let i = 0; i < 3; i++) await expect(authenticate(`Bearer ${unknown}`, tokens)).rejects.toThrow();
    expect(counter.lookups).toBe(3);
    const { token } = await createToken(store, 'uncached', ['labels:read']);
    const off = counted(store.tokens);
    const direct = cachedTokens(off.view, 0);
    for (let i = 0; i < 3; i++) await authenticate(`Bearer ${token}`, direct);
    expect(off.counter.lookups).toBe(3);
  });
});
