/** CORS_ALLOW_ORIGINS: `*` or origins; a malformed entry stops the start with a message naming it. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseCorsOrigins } from '../../src/config.js';
import { EXPOSED_HEADERS } from '../../src/api/cors.js';
import { startTestServer } from '../helpers/server.js';

describe('CORS_ALLOW_ORIGINS', () => {
  it('takes *, or a comma-separated list of origins', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins(' * ')).toBe('*');
    expect(parseCorsOrigins('http://localhost:5173, https://inventory.example.com')).toEqual(['http://localhost:5173', 'https://inventory.example.com']);
  });

  it.each([
    ['localhost:5173', /'localhost:5173' is not an origin/],
    ['http://localhost:5173/', /no path or trailing slash/],
    ['https://app.example.com/page', /no path or trailing slash/],
    ['ftp://files.example.com', /not an origin/],
    ['*, http://localhost', /'\*' alone/],
    ['http://', /not an origin/],
  ])('refuses %s', (raw, message) => {
    expect(() => loadConfig({ CORS_ALLOW_ORIGINS: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ALLOW_ORIGINS: raw })).toThrow(message);
    expect(() => loadConfig({ CORS_ALLOW_ORIGINS: raw })).toThrow(/^CORS_ALLOW_ORIGINS: /);
  });

  it('answers preflights 204 (with the headers for a listed origin, without for others) and exposes the headers pages need', async () => {
    const srv = await startTestServer({ CORS_ALLOW_ORIGINS: 'http://localhost:5173' });
    try {
      const preflight = (origin: string) =>
        fetch(`${srv.url}/v1/labelmaker/assets/000-001`, {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization, idempotency-key' },
        });
      const ok = await preflight('http://localhost:5173');
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(ok.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,DELETE');
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Content-Type.*If-None-Match.*If-Match.*Idempotency-Key/);
      const other = await preflight('https://evil.example');
      expect(other.status).toBe(204);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const res = await fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: { Origin: 'http://localhost:5173', Authorization: `Bearer ${srv.tokens.read}` } });
      expect(res.headers.get('access-control-expose-headers')).toBe(EXPOSED_HEADERS.join(','));
      expect(res.headers.get('vary')).toMatch(/Origin/);
    } finally {
      await srv.stop();
    }
  });
});
