/**
 * Verified tokens remembered for a moment. Every API request checks its bearer
 * token; looking it up in the store each time was a tenth of a cached label's
 * CPU (profiled with bench:http --cpu-prof). A token found active is trusted for
 * `ttlMs` without asking the store again, so a token revoked by another process
 * (the CLI, another instance) stops working within that time; one revoked
 * through this store stops at once. Unknown tokens are never remembered: each
 * one asks the store (a made-up token must not fill the memory).
 * Entries are keyed by the token's hash, never its plaintext.
 */
import type { TokenInfo, TokenStore } from '../records/index.js';

const MAX_ENTRIES = 10_000;

export function cachedTokens(tokens: TokenStore, ttlMs: number, now: () => number = Date.now): TokenStore {
  if (ttlMs <= 0) return tokens;
  const verified = new Map<string, { info: TokenInfo; until: number }>();
  return {
    ...tokens,
    async findActiveByHash(hash) {
      const hit = verified.get(hash);
      if (hit && hit.until > now()) return hit.info;
      const info = await tokens.findActiveByHash(hash);
      verified.delete(hash);
      if (info) {
        // Oldest first out (a Map iterates in insertion order).
        if (verified.size >= MAX_ENTRIES) verified.delete(verified.keys().next().value!);
        verified.set(hash, { info, until: now() + ttlMs });
      }
      return info;
    },
    async revoke(id) {
      for (const [hash, { info }] of verified) if (info.id === id) verified.delete(hash);
      return tokens.revoke(id);
    },
  };
}
