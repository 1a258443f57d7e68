import { afterEach, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { QL_MEDIA, QL_MODELS, encodeQlRaster, packBits } from '../../src/printing/drivers/brother-ql.js';
import { PermanentPrintError, UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { decodeMonoPng, emptyBitmap, setDot } from '../../src/labels/mono-png.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { bitmapToPng, parseQlRaster, qlRowsToBitmap, sameBitmap } from './decoders.js';
import { ASSET_DIGITS, QR_URL, assetDoc, never, timesOutAfter } from './fixtures.js';

let sink: TcpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

describe('encodeQlRaster', () => {
  it('emits the brother_ql command sequence for a die-cut 62x29 label', () => {
    const media = QL_MEDIA['brother-ql-62x29']!;
    const job = parseQlRaster(encodeQlRaster(emptyBitmap(696, 271), media));
    expect(job.commands.slice(0, 8)).toEqual([
      'init',
      'ESC i a 01',
      'ESC i z ce 0b 3e 1d 0f 01 00 00 00 00', // flags, die-cut, 62 mm, 29 mm, 271 lines (LE), page 0
      'ESC i M 40',
      'ESC i A 01',
      'ESC i K 08',
      'ESC i d 00 00',
      'print',
    ]);
    expect(job.rows).toHaveLength(271);
  });

  it('places one dot mirrored at the right offset (62 mm: offset 12 of 720 dots)', () => {
    const b = emptyBitmap(696, 271);
    setDot(b, 0, 0); // leftmost image dot -> head position 12 + 695 = 707
    setDot(b, 695, 1); // rightmost image dot -> head position 12
    const job = parseQlRaster(encodeQlRaster(b, QL_MEDIA['brother-ql-62x29']!));
    expect(job.rows[0]![707 >> 3]).toBe(0x80 >> (707 & 7));
    expect(job.rows[1]![12 >> 3]).toBe(0x80 >> (12 & 7));
    expect(job.rows[0]!.reduce((n, v) => n + v, 0) + job.rows[1]!.reduce((n, v) => n + v, 0)).toBe((0x80 >> 3) + (0x80 >> 4));
  });

  it('continuous tape: type 0x0A, length 0, 35-dot feed margin, padded to the minimum length', () => {
    const job = parseQlRaster(encodeQlRaster(emptyBitmap(696, 40), QL_MEDIA['brother-ql-62']!));
    expect([job.mediaType, job.widthMm, job.lengthMm, job.lines, job.margin]).toEqual([0x0a, 62, 0, 150, 35]);
    expect(job.rows).toHaveLength(150);
  });

  it('PackBits compression (M 02) round-trips', () => {
    const row = Buffer.from([0, 0, 0, 0, 1, 2, 3, 3, 0xff, ...Array<number>(200).fill(7), 9]);
    const packed = packBits(row);
    expect(packed.length).toBeLessThan(row.length);
    const b = decodeMonoPng(assetDoc('brother-ql-62x29').png);
    const plain = encodeQlRaster(b, QL_MEDIA['brother-ql-62x29']!, { model: QL_MODELS['QL-820NWB'] });
    const job = parseQlRaster(plain);
    expect(job.compressed).toBe(true);
    expect(sameBitmap(qlRowsToBitmap(job.rows, 696, 12), b)).toBe(true);
    expect(plain.length).toBeLessThan(b.height * 93);
  });

  it('102 mm stock uses 162-byte rows and the QL-1050/1060N extra offset', () => {
    const b = decodeMonoPng(assetDoc('brother-ql-102x152').png);
    const job = parseQlRaster(encodeQlRaster(b, QL_MEDIA['brother-ql-102x152']!), 162);
    expect([job.widthMm, job.lengthMm, job.lines]).toEqual([102, 153, 1660]);
    expect(sameBitmap(qlRowsToBitmap(job.rows, 1164, 12 + 44), b)).toBe(true);
  });

  it('refuses an image that does not match the die-cut label (PermanentPrintError)', () => {
    expect(() => encodeQlRaster(emptyBitmap(696, 300), QL_MEDIA['brother-ql-62x29']!)).toThrow(PermanentPrintError);
    expect(() => encodeQlRaster(emptyBitmap(700, 271), QL_MEDIA['brother-ql-62x29']!)).toThrow(/696x271/);
  });
});

describe('Brother QL driver over raw TCP', () => {
  it.each(['brother-ql-62x29', 'brother-ql-29x90', 'brother-ql-62'] as const)('%s: the raster decodes back to the label and its codes scan', async (template) => {
    sink = await startTcpSink();
    const doc = assetDoc(template);
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=brother-ql`);
    expect(driver.kind).toBe('brother-ql');
    const [, data] = await Promise.all([driver.print(doc, never()), sink.nextJob()]);
    const media = QL_MEDIA[template]!;
    const job = parseQlRaster(data);
    const source = decodeMonoPng(doc.png);
    expect(job.widthMm).toBe(media.widthMm);
    expect(job.mediaType).toBe(media.dieCut ? 0x0b : 0x0a);
    const back = qlRowsToBitmap(job.rows.slice(0, source.height), media.printableWidth, media.offsetRight);
    expect(sameBitmap(back, source)).toBe(true);
    const codes = await decodeBarcodes(bitmapToPng(back));
    expect(codes).toEqual(expect.arrayContaining([{ format: 'QRCode', text: QR_URL }, { format: 'Code128', text: ASSET_DIGITS }]));
  });

  it('fails permanently for a template that is not Brother QL stock, or 102 mm on a 62 mm model', async () => {
    const driver = driverFromUri('socket://127.0.0.1:9?lang=brother-ql&model=QL-820NWB');
    await expect(driver.print(assetDoc('zebra-2x1-203dpi'), never())).rejects.toThrow(PermanentPrintError);
    await expect(driver.print(assetDoc('brother-ql-102x152'), never())).rejects.toThrow(/QL-820NWB cannot print 102 mm/);
  });

  it('times out on a printer that never closes the connection', async () => {
    sink = await startTcpSink('hang');
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=brother-ql`);
    const t0 = Date.now();
    const err = (await driver.print(assetDoc('brother-ql-62x29'), timesOutAfter(300)).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/time/i);
    expect(err).toBeInstanceOf(UncertainDeliveryError); // the raster went out: it may have printed
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
