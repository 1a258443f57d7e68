import { afterEach, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { crc16Xmodem, encodeZpl } from '../../src/printing/drivers/zpl.js';
import { decodeMonoPng, emptyBitmap, setDot } from '../../src/labels/mono-png.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { bitmapToPng, decodeZplGraphic, sameBitmap } from './decoders.js';
import { ASSET_DIGITS, QR_URL, assetDoc, never, timesOutAfter } from './fixtures.js';

let sink: TcpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

describe('encodeZpl', () => {
  it('uses CRC-16/XMODEM (check value of "123456789" is 0x31C3)', () => {
    expect(crc16Xmodem('123456789')).toBe(0x31c3);
  });

  it('writes one ^GFA Z64 field with sizes in bytes and rows padded to whole bytes', () => {
    const b = emptyBitmap(10, 3); // 2 bytes per row
    setDot(b, 0, 0);
    setDot(b, 9, 2);
    const zpl = encodeZpl(b);
    expect(zpl).toMatch(/^\^XA\^PW10\^LL3\^FO0,0\^GFA,6,6,2,:Z64:[A-Za-z0-9+/=]+:[0-9A-F]{4}\^FS\^XZ$/);
    const back = decodeZplGraphic(zpl).bitmap;
    expect([...back.bits]).toEqual([0x80, 0, 0, 0, 0, 0x40]);
  });

  it('names the job in a ^FX comment (never printed) that cannot start another command', () => {
    const b = emptyBitmap(8, 1);
    const zpl = encodeZpl(b, '3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30');
    expect(zpl).toMatch(/^\^XA\^FXlabelmaker job 3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30\^PW8\^LL1\^FO0,0\^GFA,/);
    expect(encodeZpl(b, 'a^XZ~JR')).toContain('^FXlabelmaker job aXZJR^PW8');
    expect(decodeZplGraphic(zpl).bitmap.bits).toEqual(b.bits);
  });
});

describe('ZPL driver over raw TCP', () => {
  it.each(['zebra-2x1-203dpi', 'zebra-4x6-300dpi'] as const)('%s: the printer receives the exact bitmap and its codes still scan', async (template) => {
    sink = await startTcpSink();
    const doc = assetDoc(template);
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl`);
    expect(driver.kind).toBe('zpl');
    const [, job] = await Promise.all([driver.print(doc, never()), sink.nextJob()]);
    const zpl = job.toString('latin1');
    expect(zpl).toContain(`^FXlabelmaker job ${doc.jobId}^`);
    const { bitmap, printWidth, labelLength } = decodeZplGraphic(zpl);
    const source = decodeMonoPng(doc.png);
    expect([printWidth, labelLength]).toEqual([source.width, source.height]);
    expect(sameBitmap(bitmap, source)).toBe(true);
    expect(job.length).toBeLessThan(source.bits.length); // compressed, not hex (which would be 2x)
    const codes = await decodeBarcodes(bitmapToPng(bitmap));
    expect(codes).toEqual(expect.arrayContaining([{ format: 'QRCode', text: QR_URL }, { format: 'Code128', text: ASSET_DIGITS }]));
  });

  it('rejects within the time-out when the printer accepts but never closes: an uncertain delivery', async () => {
    sink = await startTcpSink('hang');
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl`);
    const t0 = Date.now();
    const err = (await driver.print(assetDoc('zebra-2x1-203dpi'), timesOutAfter(300)).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UncertainDeliveryError);
    expect(err.message).toMatch(/time.*may have printed it/i);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(sink.connections).toBe(1);
  });

  it('a printer that takes the whole job, then hangs: received, and reported as maybe printed', async () => {
    sink = await startTcpSink('take-and-hang');
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl`);
    const doc = assetDoc('zebra-2x1-203dpi');
    const [err, job] = await Promise.all([driver.print(doc, timesOutAfter(400)).catch((e: unknown) => e as Error), sink.nextJob()]);
    expect(decodeZplGraphic(job.toString('latin1')).printWidth).toBe(decodeMonoPng(doc.png).width); // the printer has all of it
    expect(err).toBeInstanceOf(UncertainDeliveryError);
  });

  it('honours the caller signal', async () => {
    sink = await startTcpSink('hang');
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl`);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('queue shutting down')), 100);
    await expect(driver.print(assetDoc('zebra-2x1-203dpi'), ac.signal)).rejects.toThrow(/queue shutting down/);
  });

  it('reports a refused connection', async () => {
    const port = await refusedPort();
    const driver = driverFromUri(`socket://127.0.0.1:${port}?lang=zpl`);
    const err = (await driver.print(assetDoc('zebra-2x1-203dpi'), timesOutAfter(2000)).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err).not.toBeInstanceOf(UncertainDeliveryError); // nothing was sent: a certain failure
  });

  it('with waiteof=false it finishes once the data is sent', async () => {
    sink = await startTcpSink('hang');
    const driver = driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl&waiteof=false`);
    await expect(driver.print(assetDoc('zebra-2x1-203dpi'), timesOutAfter(2000))).resolves.toBeUndefined();
  });
});
