import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataMatrix, type DataMatrix } from '../../src/labels/datamatrix.js';
import { encodePng1 } from '../../src/labels/png.js';
import { encodeDataMatrix, SymbolError } from '../../src/labels/symbols.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
// Deterministic (mulberry32), so failures reproduce.
import { seededRandom as rng } from '../../src/labels/degrade.js';


/** The symbol as a 1-bit PNG, 3 dots a module, 2 modules of quiet zone. */
function dmPng(m: DataMatrix): Buffer {
  const mod = 3;
  const quiet = 2;
  const side = (m.size + 2 * quiet) * mod;
  const rowBytes = (side + 7) >> 3;
  const rows = Buffer.alloc((rowBytes + 1) * side);
  for (let y = 0; y < side; y++) rows.fill(0xff, y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1));
  for (let r = 0; r < m.size; r++) {
    for (let c = 0; c < m.size; c++) {
      if (!m.dark[r * m.size + c]) continue;
      for (let y = (r + quiet) * mod; y < (r + quiet + 1) * mod; y++) {
        for (let x = (c + quiet) * mod; x < (c + quiet + 1) * mod; x++) rows[y * (rowBytes + 1) + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
      }
    }
  }
  return encodePng1(rows, side, side);
}

/** What zxing-wasm reads: the text as encoded (no <SOH> escapes), ISO 8859-1 unless an ECI says otherwise. */
async function readBack(m: DataMatrix): Promise<string | undefined> {
  const found = await decodeBarcodes(dmPng(m), { formats: ['DataMatrix'], tryRotate: false, textMode: 'Plain', characterSet: 'ISO8859_1' });
  return found[0]?.text;
}

const pick = (next: () => number, chars: string, n: number) => Array.from({ length: n }, () => chars[Math.floor(next() * chars.length)]).join('');

/** Square symbol sides and their data capacity (ISO/IEC 16022 table 7). */
const CAPACITY: [number, number][] = [
  [10, 3], [12, 5], [14, 8], [16, 12], [18, 18], [20, 22], [22, 30], [24, 36], [26, 44], [32, 62], [36, 86], [40, 114],
  [44, 144], [48, 174], [52, 204], [64, 280], [72, 368], [80, 456], [88, 576], [96, 696], [104, 816], [120, 1050], [132, 1304], [144, 1558],
];

describe('DataMatrix', () => {
  it('draws module for module the symbols @zxing/library drew, for 600 recorded URLs, ids and strings of every encodation', () => {
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/datamatrix-zxing.json', import.meta.url), 'utf8')) as { symbols: [string, number, string][] };
    expect(fixture.symbols.length).toBe(600);
    for (const [data, side, digest] of fixture.symbols) {
      const m = dataMatrix(data);
      expect(m.size, JSON.stringify(data)).toBe(side);
      expect(createHash('sha256').update(`${m.size}:`).update(m.dark).digest('hex').slice(0, 16), JSON.stringify(data)).toBe(digest);
    }
  });

  it('fills every square size, 10 x 10 to 144 x 144, and each reads back', async () => {
    for (const [side, capacity] of CAPACITY) {
      // Two digits a codeword: exactly the capacity, so one digit pair more takes the next size.
      const data = pick(rng(side), '0123456789', 2 * capacity);
      const m = dataMatrix(data);
      expect(m.size, `${capacity} codewords`).toBe(side);
      const larger = CAPACITY.find(([s]) => s > side)?.[0];
      if (larger) expect(dataMatrix(data + '00').size).toBe(larger);
      expect(await readBack(m), `${side} x ${side}`).toBe(data);
    }
  }, 60_000);

  it('reads back as its data in every encodation: ASCII, C40, Text, X12, EDIFACT, Base 256, Latin-1 and beyond', async () => {
    const next = rng(3);
    const cases = [
      'https://inventory.example.com/item/9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64', // Text for the hex, ASCII around it
      'grcy:p:12:345',
      'HTTPS://A.EXAMPLE.ORG/ASSETS/000-001', // C40 and EDIFACT
      'ABC*DEF>GHI\rJKL*MNO>PQR 123*456>', // X12
      '!"#$%&\'()*+,-./:;<=>?@[\\]^ABC!"#$%', // EDIFACT
      '\x00\x01\x7f\x80\x9f\xa0\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8', // Base 256
      'ÄÖÜABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ', // bytes 128-255 inside C40 (Upper Shift): zxing's JavaScript port got these wrong
      'Käse, Brötchen & Crème brûlée',
      'grcy:p:Łódź', // beyond ISO 8859-1: UTF-8 after ECI 000026
      'https://x.io/item/日本語の棚',
      '📦 Box 3',
      '7',
    ];
    for (let i = 0; i < 60; i++) {
      const sets = ['0123456789', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ ', 'abcdefghijklmnopqrstuvwxyz', '*>\r 0123456789AB', '!"#$%&/:;<=>?@[]^', 'éüßñ¿\x80\xff', '\x01\x1d\x7f'];
      let s = '';
      const len = 1 + Math.floor(next() * 150);
      while (s.length < len) s += pick(next, sets[Math.floor(next() * sets.length)]!, 1 + Math.floor(next() * 12));
      cases.push(s);
    }
    for (const data of cases) expect(await readBack(dataMatrix(data)), JSON.stringify(data)).toBe(data);
  }, 60_000);

  it('is refused, as a SymbolError, with no data or more than the largest symbol holds', () => {
    expect(() => encodeDataMatrix('')).toThrow(SymbolError);
    expect(() => encodeDataMatrix('1'.repeat(2 * 1558 + 2))).toThrow(SymbolError);
    expect(encodeDataMatrix('1'.repeat(2 * 1558)).cols).toBe(144);
  });
});
