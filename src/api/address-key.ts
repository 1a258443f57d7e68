/**
 * The rate-limit key of a client without a valid token: its IPv4 address, or the
 * /56 its IPv6 address is in. One IPv6 host usually holds a whole /64 (a site or a
 * household a /56, RFC 6177), so counting per address would let one client rotate
 * through 2^64 addresses, each with a fresh budget. The same rule as
 * express-rate-limit's ipKeyGenerator (default subnet /56), in the few lines it takes.
 */
import { isIPv6 } from 'node:net';

/** Bits of an IPv6 address that name its client's network. */
const IPV6_PREFIX_BITS = 56;

export function addressKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const g = ipv6Groups(ip);
  // IPv4-mapped (::ffff:a.b.c.d, in any notation), and the old IPv4-compatible ::a.b.c.d: the IPv4 client.
  const zeros = g.slice(0, 5).every((x) => x === 0);
  if (zeros && (g[5] === 0xffff || (g[5] === 0 && dotted))) {
    return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  }
  const kept = g.map((x, i) => {
    const bits = Math.min(16, Math.max(0, IPV6_PREFIX_BITS - 16 * i));
    return bits === 0 ? 0 : x & ~((1 << (16 - bits)) - 1) & 0xffff;
  });
  return `${kept.map((x) => x.toString(16)).join(':')}/${IPV6_PREFIX_BITS}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups, a zone dropped). */
function ipv6Groups(ip: string): number[] {
  let s = ip.replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((x) => parseInt(x, 16));
}
