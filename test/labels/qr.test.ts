import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { encodePng1 } from '../../src/labels/png.js';
import { createSymbol, formatBits, qrMatrix, qrSymbolSize, QR_QUIET_MODULES, type QrLevel, type QrMatrix } from '../../src/labels/qr.js';
import { maskPenalty, maskPenaltyPerModule } from '../../src/labels/qr-penalty.js';
import { matrixRuns } from '../../src/labels/symbols.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
// Deterministic (mulberry32), so failures reproduce.
import { seededRandom as rng } from '../../src/labels/degrade.js';


const URL_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?=&%';
const HOSTS = ['https://inventory.example.com/', 'http://homebox.local:7745/', 'https://A.EXAMPLE.ORG/', 'https://x.io/'];

/** A URL of `len` characters (20-120), mixing case and digit runs so every qrcode segment mode shows up. */
function randomUrl(next: () => number, len: number): string {
  let s = HOSTS[Math.floor(next() * HOSTS.length)]!;
  while (s.length < len) {
    const r = next();
    if (r < 0.15) s += String(Math.floor(next() * 1e9)); // numeric run
    else if (r < 0.25) s += 'ITEM-' + Math.floor(next() * 1e4); // alphanumeric run
    else s += URL_CHARS[Math.floor(next() * URL_CHARS.length)];
  }
  return s.slice(0, len);
}

/** The matrix as a 1-bit PNG, 3 dots a module, with its quiet zone. */
function qrPng(m: QrMatrix): Buffer {
  const mod = 3;
  const side = (m.size + 2 * QR_QUIET_MODULES) * mod;
  const rowBytes = (side + 7) >> 3;
  const rows = Buffer.alloc((rowBytes + 1) * side);
  for (let y = 0; y < side; y++) rows.fill(0xff, y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1));
  const q = QR_QUIET_MODULES * mod;
  const sym = { kind: 'matrix' as const, symbology: 'qr' as const, data: '', cols: m.size, rows: m.size, dark: m.dark, quiet: QR_QUIET_MODULES };
  matrixRuns(sym, q, q, mod, (x, y, w, h) => {
    for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) rows[yy * (rowBytes + 1) + 1 + (xx >> 3)]! &= ~(0x80 >> (xx & 7));
  });
  return encodePng1(rows, side, side);
}

describe('QR matrices', () => {
  it('format information matches the ISO 18004 table for level M', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((mask) => formatBits(mask))).toEqual([0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0]);
  });

  it('choose the mask exactly as qrcode does (same penalty rules) for 2000 random URLs', () => {
    const next = rng(1);
    for (let i = 0; i < 2000; i++) {
      const url = randomUrl(next, 20 + Math.floor(next() * 101));
      const ref = createSymbol(url); // qrcode's own mask search on the same segments
      const m = qrMatrix(url);
      expect(m.size, url).toBe(ref.modules.size);
      expect(Buffer.from(m.dark).equals(Buffer.from(ref.modules.data)), url).toBe(true);
    }
  });

  it('score masks on bit words exactly as module by module, for every size up to 64 and symbols with long runs', () => {
    const next = rng(7);
    for (let n = 11; n <= 64; n++) {
      for (let trial = 0; trial < 20; trial++) {
        // Mostly random modules; some trials with long runs and large blocks of one colour.
        const dense = trial % 4 === 0 ? 0.9 : trial % 4 === 1 ? 0.1 : 0.5;
        const m = new Uint8Array(n * n);
        for (let i = 0; i < m.length; i++) m[i] = next() < dense ? 1 : 0;
        expect(maskPenalty(m, n), `n=${n} trial ${trial}`).toBe(maskPenaltyPerModule(m, n));
      }
    }
    // The finder-like patterns at every offset of a row and of a column, both ways round.
    for (const n of [21, 31, 32, 33, 45, 64]) {
      for (const pattern of [[1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1]]) {
        for (let at = 0; at + 11 <= n; at++) {
          const m = new Uint8Array(n * n).fill(1);
          for (let j = 0; j < 11; j++) {
            m[3 * n + at + j] = pattern[j]!; // row 3
            m[(at + j) * n + 5] = pattern[j]!; // column 5
          }
          expect(maskPenalty(m, n), `n=${n} at ${at}`).toBe(maskPenaltyPerModule(m, n));
        }
      }
    }
  });

  it('never need a larger symbol than QRCode.create (segments with the fewest bits)', () => {
    const next = rng(3);
    const texts = ['https://x.io/' + '1'.repeat(300), 'HTTPS://A.B/' + 'ABC123'.repeat(60), 'é€😀 mixed ÄÖ 12345 ABC', '0', 'a'];
    for (let i = 0; i < 2000; i++) texts.push(randomUrl(next, 1 + Math.floor(next() * 300)));
    let smaller = 0;
    for (const t of texts) {
      const ours = createSymbol(t, 0).version;
      const ref = QRCode.create(t, { errorCorrectionLevel: 'M' }).version;
      expect(ours, t).toBeLessThanOrEqual(ref);
      if (ours < ref) smaller++;
    }
    expect(smaller).toBeLessThan(texts.length); // sanity: mostly equal
  });

  it('size symbols from the capacity tables exactly as QRCode.create fills versions 1-40, at every level', () => {
    // Where qrSymbolSize moves to a larger version (binary search on the text's length):
    // QRCode.create must give the text one shorter the smaller size and the text itself
    // the larger one, and one past version 40 must not fit at all.
    // Byte mode is enough: an error in the tables is whole codewords, so it moves a byte capacity.
    for (const level of ['L', 'M', 'Q', 'H'] as QrLevel[]) {
      const sizeOf = (n: number) => qrSymbolSize('a'.repeat(n), level) ?? Infinity;
      const create = (n: number) => QRCode.create([{ mode: 'byte', data: Buffer.from('a'.repeat(n)) }], { errorCorrectionLevel: level, maskPattern: 0 }).modules.size;
      let boundaries = 0;
      for (let short = 1; sizeOf(short) !== Infinity; ) {
        const size = sizeOf(short);
        let [lo, hi] = [short, 3000]; // sizeOf(lo) === size < sizeOf(hi); version 40 holds at most 2953 bytes
        while (hi - lo > 1) {
          const mid = (lo + hi) >> 1;
          if (sizeOf(mid) === size) lo = mid;
          else hi = mid;
        }
        expect(create(lo), `${level}, ${lo} bytes`).toBe(size);
        if (sizeOf(hi) === Infinity) expect(() => create(hi), `${level}, ${hi} bytes`).toThrow();
        else expect(create(hi), `${level}, ${hi} bytes`).toBe(sizeOf(hi));
        boundaries++;
        short = hi;
      }
      expect(boundaries, level).toBe(40);
    }
  });

  it('decode back to the same text for 300 random URLs of 20-120 characters', async () => {
    const next = rng(2);
    const urls = ['https://x.io/é€😀?q=ÄÖ 12345 ABC', 'HTTPS://A.B/' + 'ABC123'.repeat(40), 'https://x.io/' + '7'.repeat(400)];
    for (let i = 0; i < 300; i++) urls.push(randomUrl(next, 20 + Math.floor(next() * 101)));
    for (const url of urls) {
      const codes = await decodeBarcodes(qrPng(qrMatrix(url)));
      expect(codes.map((c) => c.text), url).toEqual([url]);
    }
  });
});
