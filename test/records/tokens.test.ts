import { describe, expect, it } from 'vitest';
import { formatScopes, generateToken, hashToken, parseScopes, parseToken } from '../../src/records/tokens.js';

describe('generateToken', () => {
  it('has the lm_<id>_<secret> form with a 32-byte secret', () => {
    const { id, token } = generateToken();
    expect(id).toMatch(/^[a-z2-7]{8}$/);
    expect(token.startsWith(`lm_${id}_`)).toBe(true);
    const secret = token.slice(`lm_${id}_`.length);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(parseToken(token)).toEqual({ id, secret });
  });

  it('does not repeat ids or tokens', () => {
    const tokens = Array.from({ length: 200 }, generateToken);
    expect(new Set(tokens.map((t) => t.id)).size).toBe(200);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(200);
  });
});

describe('parseToken', () => {
  it.each(['', 'lm_', 'lm_abcdefgh_short', 'xx_abcdefgh_' + 'A'.repeat(43), 'lm_ABCDEFGH_' + 'A'.repeat(43), 'lm_abcdefgh_' + 'A'.repeat(44)])('rejects %j', (t) => {
    expect(parseToken(t)).toBeUndefined();
  });
});

describe('hashToken', () => {
  it('is SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('never equals or contains the plaintext, and differs per token', () => {
    const a = generateToken().token;
    const b = generateToken().token;
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toBe(a);
    expect(hashToken(a)).not.toContain(a.slice(12));
    expect(hashToken(a)).toBe(hashToken(a));
    expect(hashToken(a)).not.toBe(hashToken(b));
  });
});

describe('parseScopes', () => {
  it('splits on any whitespace, deduplicates and orders', () => {
    expect(parseScopes('')).toEqual([]);
    expect(parseScopes('  labels:print\tlabels:read labels:print\n')).toEqual(['labels:read', 'labels:print']);
    expect(formatScopes(['labels:print', 'labels:read'])).toBe('labels:read labels:print');
  });

  it('rejects unknown scopes, naming them', () => {
    expect(() => parseScopes('labels:read admin')).toThrow(/unknown scope 'admin'/);
    expect(() => parseScopes('Labels:Read')).toThrow(/'Labels:Read'/);
  });
});
