/**
 * API token material. Pure: node:crypto only, no storage.
 *
 * Format: `lm_<id>_<secret>`: `id` is 8 public base32 chars (shown in lists, used
 * to revoke), `secret` is 32 random bytes in base64url. The store keeps only
 * hashToken(token).
 */
import { hash, randomBytes } from 'node:crypto';
import { ALL_SCOPES, type Scope } from './types.js';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const TOKEN_FORMAT = /^lm_([a-z2-7]{8})_([A-Za-z0-9_-]{43})$/;

/** 8 base32 chars from 5 random bytes (40 bits: 5 bits per char, no modulo bias). */
function randomId(): string {
  let bits = 0n;
  for (const byte of randomBytes(5)) bits = (bits << 8n) | BigInt(byte);
  let id = '';
  for (let i = 7; i >= 0; i--) id += BASE32[Number((bits >> BigInt(i * 5)) & 31n)];
  return id;
}

export function generateToken(): { id: string; token: string } {
  const id = randomId();
  return { id, token: `lm_${id}_${randomBytes(32).toString('base64url')}` };
}

/** Splits a well-formed token; undefined for anything else (reject before hashing/lookup). */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_FORMAT.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/**
 * SHA-256 hex of the whole token. A slow password hash (bcrypt/scrypt/argon2) exists to
 * make guessing low-entropy human passwords expensive; these tokens carry 256 random
 * bits, so brute force is already infeasible and a fast hash keeps per-request auth
 * cheap. It also makes the hash deterministic, so the store can look a token up by an
 * indexed equality on the hash instead of comparing against every row. crypto.hash
 * is the one-shot form: a third of createHash().update().digest()'s time (Node 24).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function isScope(word: string): word is Scope {
  return (ALL_SCOPES as readonly string[]).includes(word);
}

/** Space-separated scopes → Scope[] (deduplicated, in ALL_SCOPES order). Throws on unknown scopes. */
export function parseScopes(text: string): Scope[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const unknown = words.filter((w) => !isScope(w));
  if (unknown.length > 0) {
    throw new Error(`unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((w) => `'${w}'`).join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
  }
  return ALL_SCOPES.filter((s) => words.includes(s));
}

/** Scope[] → the space-separated text stored in api_tokens.scopes. */
export function formatScopes(scopes: readonly Scope[]): string {
  return parseScopes(scopes.join(' ')).join(' ');
}
