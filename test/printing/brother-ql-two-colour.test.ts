/**
 * The two-colour raster for the red/black roll (DK-22251), byte for byte as pklaus/brother_ql
 * (raster.py add_expanded_mode, add_raster_data; conversion.py) and LPrint's BROTHER.md give it:
 * ESC i K bit 0, then for every line `77 01 nn` black and `77 02 nn` red, no dot in both.
 * Sent to the Brother QL peer (test/helpers/brother-ql-peer.ts), which decodes what it gets,
 * records the red plane, and refuses a black-only job while the red/black roll is loaded.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { getStock, renderLabel, sameDesignForEveryKind, type LabelDesign } from '../../src/labels/index.js';
import { decodeBlackRedPng, decodeMonoPng, emptyBitmap, setDot } from '../../src/labels/mono-png.js';
import { jobNeedsRed } from '../../src/printing/index.js';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { encodeQlRaster, QL_MEDIA, QL_MODELS } from '../../src/printing/drivers/brother-ql.js';
import { PermanentPrintError, type PrintDocument } from '../../src/printing/drivers/types.js';
import { readPrinterStatus } from '../../src/printing/status/index.js';
import { QL_ERROR_2, startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { parseQlRaster, qlRowsToBitmap, sameBitmap } from './decoders.js';
import { assetDoc, never } from './fixtures.js';

let peer: QlPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const RED_TITLE_AND_CODES: LabelDesign = {
  text: [
    { role: 'title', source: { field: 'name' }, colour: 'red' },
    { role: 'line', source: { field: 'path' } },
  ],
  codes: [{ symbology: 'stock-2d', data: '{url}', colour: 'red' }],
  textPt: { min: 7, max: 36 },
};

function redDoc(): PrintDocument {
  const record = { kind: 'item' as const, id: 'b1e3', name: 'Danger: 230 V', path: ['Garage', 'Fuse box'], url: 'https://inventory.example.com/item/b1e3' };
  const png = renderLabel(record, { name: 'warning', stock: getStock('brother-ql-62-red'), designs: sameDesignForEveryKind(RED_TITLE_AND_CODES) }).png;
  return { jobId: randomUUID(), createdAt: new Date().toISOString(), png, stockName: 'brother-ql-62-red', title: 'item label', fields: {} };
}

describe('encodeQlRaster, two-colour', () => {
  it('is byte for byte the published sequence: ESC i K 09, w 01 (black) then w 02 (red) for every line', () => {
    const media = QL_MEDIA['brother-ql-62-red']!;
    expect(media.twoColour).toBe(true);
    const black = emptyBitmap(696, 2);
    const red = emptyBitmap(696, 2);
    setDot(black, 0, 0); // head position 12 + 695 = 707
    setDot(red, 695, 1); // head position 12
    setDot(black, 695, 1); // under a red dot: taken out of the black plane
    const bytes = encodeQlRaster(black, media, { red });
    const row = (bit: number | null): number[] => {
      const r = Array<number>(90).fill(0);
      if (bit !== null) r[bit >> 3] = 0x80 >> (bit & 7);
      return r;
    };
    const lines = 150; // padded to the QL's shortest raster on continuous tape
    const expected = Buffer.from([
      ...Array<number>(200).fill(0),
      0x1b, 0x40, // ESC @
      0x1b, 0x69, 0x61, 0x01, // ESC i a 01: raster mode
      0x1b, 0x69, 0x7a, 0xce, 0x0a, 62, 0, lines, 0, 0, 0, 0, 0, // ESC i z: continuous 62 mm, 150 lines
      0x1b, 0x69, 0x4d, 0x40, // ESC i M: autocut
      0x1b, 0x69, 0x41, 0x01, // ESC i A: every label
      0x1b, 0x69, 0x4b, 0x09, // ESC i K: cut at end + two-colour
      0x1b, 0x69, 0x64, 0x23, 0x00, // ESC i d: 35-dot margin
      0x77, 0x01, 90, ...row(707), 0x77, 0x02, 90, ...row(null),
      0x77, 0x01, 90, ...row(null), 0x77, 0x02, 90, ...row(12),
      ...Array.from({ length: lines - 2 }, () => [0x77, 0x01, 90, ...row(null), 0x77, 0x02, 90, ...row(null)]).flat(),
      0x1a,
    ]);
    expect(bytes.equals(expected)).toBe(true);
  });

  it('compresses each plane line on its own (QL-820NWB: M 02)', () => {
    const { black, red } = decodeBlackRedPng(redDoc().png);
    const job = parseQlRaster(encodeQlRaster(black, QL_MEDIA['brother-ql-62-red']!, { model: QL_MODELS['QL-820NWB'], red }));
    expect([job.compressed, job.twoColour, job.rows.length, job.redRows.length]).toEqual([true, true, black.height, black.height]);
    expect(sameBitmap(qlRowsToBitmap(job.redRows, 696, 12), red!)).toBe(true);
    expect(sameBitmap(qlRowsToBitmap(job.rows, 696, 12), black)).toBe(true);
  });

  it('black-only rolls stay g 00; red on them, or the red/black roll on a model without two-colour, is refused', () => {
    const plain = parseQlRaster(encodeQlRaster(emptyBitmap(696, 10), QL_MEDIA['brother-ql-62']!));
    expect([plain.twoColour, plain.commands.includes('ESC i K 08'), plain.redRows.length]).toEqual([false, true, 0]);
    expect(() => encodeQlRaster(emptyBitmap(696, 10), QL_MEDIA['brother-ql-62']!, { red: emptyBitmap(696, 10) })).toThrow(PermanentPrintError);
    expect(() => encodeQlRaster(emptyBitmap(696, 10), QL_MEDIA['brother-ql-62-red']!, { model: QL_MODELS['QL-720NW'] })).toThrow(/QL-800, QL-810W and QL-820NWB only/);
  });
});

describe('Brother QL peer with the red/black roll', () => {
  it('a red label: printed in two colours, the red plane is the label\'s red, the black plane its black', async () => {
    peer = await startQlPeer({ model: 'QL-820NWB', twoColour: true });
    const doc = redDoc();
    const driver = driverFromUri(peer.uri);
    const [, print] = await Promise.all([driver.print(doc, never()), peer.nextPrint()]);
    expect(print.refused).toBe(false);
    const { black, red } = decodeBlackRedPng(doc.png);
    const job = print.job;
    expect(job.twoColour).toBe(true);
    const h = black.height;
    expect(sameBitmap(qlRowsToBitmap(job.redRows.slice(0, h), 696, 12), red!)).toBe(true);
    expect(sameBitmap(qlRowsToBitmap(job.rows.slice(0, h), 696, 12), black)).toBe(true);
    const dots = (rows: Buffer[]) => rows.reduce((n, r) => n + r.reduce((m, v) => m + ((v.toString(2).match(/1/g) ?? []).length), 0), 0);
    expect(dots(job.redRows)).toBeGreaterThan(2000); // title and QR code
    expect(dots(job.rows)).toBeGreaterThan(500); // the path
    expect((await readPrinterStatus(driver, undefined, 2000)).state).toBe('ready');
  });

  it('a label without red on that roll still goes in two-colour mode, with empty red lines: the printer takes it', async () => {
    peer = await startQlPeer({ model: 'QL-800', twoColour: true });
    const doc = assetDoc('brother-dk-22251');
    const driver = driverFromUri(peer.uri);
    const [, print] = await Promise.all([driver.print({ ...doc, stockName: 'brother-ql-62-red' }, never()), peer.nextPrint()]);
    expect([print.refused, print.job.twoColour]).toEqual([false, true]);
    expect(print.job.redRows.every((r) => r.every((v) => v === 0))).toBe(true);
    const mono = decodeMonoPng(doc.png);
    expect(sameBitmap(qlRowsToBitmap(print.job.rows.slice(0, mono.height), 696, 12), mono)).toBe(true);
  });

  it('a black-only job while the red/black roll is loaded is refused: nothing printed, the printer asks for attention', async () => {
    peer = await startQlPeer({ model: 'QL-820NWB', twoColour: true });
    const driver = driverFromUri(peer.uri);
    const [, print] = await Promise.all([driver.print(assetDoc('brother-ql-62'), never()), peer.nextPrint()]);
    expect([print.refused, print.job.twoColour]).toEqual([true, false]);
    expect(peer.state.errors2 & QL_ERROR_2.replaceMedia).toBe(QL_ERROR_2.replaceMedia);
    expect((await readPrinterStatus(driver, undefined, 2000)).state).toBe('attention');
  });
});

describe('jobNeedsRed', () => {
  it('every job on the red/black stock (by name or part number), none on any other', () => {
    expect([jobNeedsRed('brother-ql-62-red'), jobNeedsRed('brother-dk-22251')]).toEqual([true, true]);
    expect([jobNeedsRed('brother-ql-62'), jobNeedsRed('brother-dk-22205'), jobNeedsRed('zebra-4x6-203dpi'), jobNeedsRed('no-such-stock')]).toEqual([false, false, false, false]);
  });
});
