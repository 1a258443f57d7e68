/** The rate-limit key of a client without a token (src/api/address-key.ts). */
import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/api/address-key.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 client, in either notation', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('::203.0.113.7')).toBe('203.0.113.7'); // the old IPv4-compatible form
  });

  it('counts every address of one /56 as one client, and the next /56 apart', () => {
    const a = addressKey('2001:db8:1234:5601::1');
    expect(a).toBe('2001:db8:1234:5600:0:0:0:0/56');
    expect(addressKey('2001:db8:1234:56ff:ffff:ffff:ffff:ffff')).toBe(a);
    expect(addressKey('2001:DB8:1234:5600:0:0:0:9')).toBe(a);
    expect(addressKey('2001:db8:1234:5700::1')).not.toBe(a);
  });

  it('reads the short forms: ::, ::1, a trailing ::, a zone', () => {
    expect(addressKey('::1')).toBe('0:0:0:0:0:0:0:0/56');
    expect(addressKey('::')).toBe('0:0:0:0:0:0:0:0/56');
    expect(addressKey('fe80:1:2:3ff::')).toBe('fe80:1:2:300:0:0:0:0/56');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0:0:0:0:0/56');
  });
});
