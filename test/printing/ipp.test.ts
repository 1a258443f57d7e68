import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { IppDriver, ippJobName } from '../../src/printing/drivers/ipp.js';
import { decodeResponse, encodeRequest, TAG } from '../../src/printing/drivers/ipp-codec.js';
import { PermanentPrintError, UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { decodeMonoPng } from '../../src/labels/mono-png.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { startLossyIppProxy, type LossyIppProxy } from '../helpers/lossy-ipp-proxy.js';
import { startTcpSink } from '../helpers/tcp-sink.js';
import { bitmapToPng, decodePwgRaster, sameBitmap } from './decoders.js';
import { ASSET_DIGITS, QR_URL, assetDoc, never, timesOutAfter } from './fixtures.js';

const run = promisify(execFile);

describe('IPP codec', () => {
  it('encodes attributes as RFC 8010 tag / name / value with additional values name-less', () => {
    const msg = encodeRequest(0x000b, 7, [{ tag: TAG.keyword, name: 'requested-attributes', values: ['a', 'bc'] }]);
    expect(msg.toString('hex')).toBe(
      '0101' + '000b' + '00000007' + '01' + '44' + '0014' + Buffer.from('requested-attributes').toString('hex') + '0001' + '61' + '44' + '0000' + '0002' + '6263' + '03',
    );
  });

  it('decodes groups, multi-valued attributes, resolutions and collections', () => {
    const hex =
      '0101' + '0000' + '00000001' + '01' + '47' + '0012' + Buffer.from('attributes-charset').toString('hex') + '0005' + Buffer.from('utf-8').toString('hex') +
      '04' + '32' + '0003' + Buffer.from('res').toString('hex') + '0009' + '0000012c' + '0000012c' + '03' +
      '21' + '0000' + '0004' + '00000258' +
      '34' + '0003' + Buffer.from('col').toString('hex') + '0000' + '4a' + '0000' + '0001' + '6b' + '21' + '0000' + '0004' + '00000002' + '37' + '0000' + '0000' + '03';
    const res = decodeResponse(Buffer.from(hex, 'hex'));
    expect(res.statusCode).toBe(0);
    expect(res.groups.map((g) => g.tag)).toEqual([1, 4]);
    expect(res.groups[1]!.attributes.get('res')).toEqual([{ x: 300, y: 300, units: 'dpi' }, 600]);
    expect(res.groups[1]!.attributes.get('col')).toEqual([{ k: [2] }]);
    expect(() => decodeResponse(Buffer.from(hex.slice(0, 40), 'hex'))).toThrow(/truncated/);
  });
});

describe('IPP driver against a real ippeveprinter', () => {
  let full: IppEvePrinter;
  let rasterOnly: IppEvePrinter;
  let jpegOnly: IppEvePrinter;
  beforeAll(async () => {
    [full, rasterOnly, jpegOnly] = await Promise.all([
      startIppEvePrinter(),
      startIppEvePrinter({ formats: ['image/pwg-raster', 'image/jpeg'] }),
      startIppEvePrinter({ formats: ['image/jpeg'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([full?.stop(), rasterOnly?.stop(), jpegOnly?.stop()]);
  });

  it('delivers the PNG byte-identical when the printer takes image/png', async () => {
    const doc = assetDoc('brother-ql-62x29', 'asset label: Bohrmaschine «Grün»');
    const driver = driverFromUri(full.uri);
    expect(driver).toBeInstanceOf(IppDriver);
    await driver.print(doc, never());
    // A second job right away meets "server-error-busy" (ippeveprinter prints one job at a time):
    // a transient Error, not a PermanentPrintError, so the queue retries, as we do here.
    for (let attempt = 1; ; attempt++) {
      const err = await driver.print(doc, never()).catch((e: unknown) => e as Error);
      if (!err) break;
      expect(err).not.toBeInstanceOf(PermanentPrintError);
      expect(err.message).toMatch(/server-error-busy \(0x0507\)/);
      expect(attempt).toBeLessThan(50);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((driver as IppDriver).lastJobId).toBe(2);
    const docs = await full.documents();
    expect(docs.map((d) => d.name)).toEqual([expect.stringMatching(/^1-.*\.png$/), expect.stringMatching(/^2-.*\.png$/)]);
    expect(docs[0]!.data.equals(doc.png)).toBe(true);
    // Cross-check with CUPS's own client: both jobs completed under our job name and user.
    const { stdout } = await run('ipptool', ['-tv', full.uri, 'get-completed-jobs.test']);
    expect(stdout).toMatch(/job-state \(enum\) = completed/);
    const attrs = await run('ipptool', ['-tv', full.uri, join(import.meta.dirname, 'job-attributes.test')]);
    // The job-name carries the job id: what a redelivery looks for (ipptool shows '[' as '\\[').
    expect(attrs.stdout.replaceAll('\\[', '[')).toContain(`job-name (nameWithoutLanguage) = asset label: Bohrmaschine «Grün» [${doc.jobId}]`);
    expect(attrs.stdout).toContain('job-originating-user-name (nameWithoutLanguage) = labelmaker');
  });

  it('sends PWG raster (black_1, 300 dpi) when the printer lacks PNG, and it decodes back to the label', async () => {
    const doc = assetDoc('brother-ql-62x29');
    await driverFromUri(rasterOnly.uri).print(doc, timesOutAfter(10_000));
    const [received] = await rasterOnly.documents();
    expect(received!.name).toMatch(/\.pwg$/);
    const page = decodePwgRaster(received!.data);
    expect([page.width, page.height, page.dpi, page.bitsPerPixel, page.colorSpace]).toEqual([696, 271, 300, 1, 3]);
    expect(sameBitmap(page.bitmap, decodeMonoPng(doc.png))).toBe(true);
    const codes = await decodeBarcodes(bitmapToPng(page.bitmap));
    expect(codes).toEqual(expect.arrayContaining([{ format: 'QRCode', text: QR_URL }, { format: 'Code128', text: ASSET_DIGITS }]));
    // CUPS's own PWG reader (ippevepcl) accepts the file (and rejects one with a broken header).
    const file = join(rasterOnly.spoolDir, received!.name);
    const pcl = (file: string) => run('ippevepcl', [file], { env: { ...process.env, CONTENT_TYPE: 'image/pwg-raster' }, encoding: 'buffer' });
    await expect(pcl(file)).resolves.toBeTruthy();
    const broken = Buffer.from(received!.data);
    broken.write('RaSx', 0, 'latin1');
    await writeFile(file, broken);
    await expect(pcl(file)).rejects.toThrow();
  });

  it('a 203 dpi label fails permanently on a printer whose raster resolutions are 300/600 dpi only', async () => {
    const doc = assetDoc('zebra-2x1-203dpi');
    // ippeveprinter offers 300 and 600 dpi only: neither is a multiple of 203, so this must fail clearly.
    await expect(driverFromUri(rasterOnly.uri).print(doc, never())).rejects.toThrow(PermanentPrintError);
    await expect(driverFromUri(rasterOnly.uri).print(doc, never())).rejects.toThrow(/no PWG raster resolution that fits a 203 dpi label \(it supports: 300, 600 dpi\)/);
  });

  it('fails permanently, naming the supported formats, when the printer takes neither PNG nor PWG raster', async () => {
    const err = await driverFromUri(jpegOnly.uri).print(assetDoc('brother-ql-62x29'), never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentPrintError);
    expect((err as Error).message).toMatch(/accepts neither image\/png nor image\/pwg-raster \(it supports: .*image\/jpeg/);
    expect(await jpegOnly.documents()).toEqual([]);
  });

  it('reports IPP errors by name: a printer refusing PNG answers client-error-attributes-or-values-not-supported', async () => {
    // Bypass the format check by lying in a stale cache: print PNG to the raster-only printer.
    const driver = driverFromUri(rasterOnly.uri);
    (driver as unknown as { caps: Promise<unknown> }).caps = Promise.resolve({ formats: ['image/png'], pwgResolutions: [], pwgTypes: [] });
    const err = await driver.print(assetDoc('brother-ql-62x29'), never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentPrintError);
    expect((err as Error).message).toMatch(/client-error-attributes-or-values-not-supported \(0x040b\): Unsupported document-format/);
  });

  it('an unknown printer path is a clear error', async () => {
    const driver = driverFromUri(full.uri.replace('/ipp/print', '/ipp/nope'));
    await expect(driver.print(assetDoc('brother-ql-62x29'), never())).rejects.toThrow(/IPP printer ipp:\/\/localhost:\d+\/ipp\/nope/);
  });
});

describe('IPP redelivery: asking the printer before sending again', () => {
  let printer: IppEvePrinter;
  let proxy: LossyIppProxy | undefined;
  beforeAll(async () => {
    printer = await startIppEvePrinter();
  });
  afterAll(async () => {
    await proxy?.close();
    await printer?.stop();
  });

  it('job names keep the job id whole, within 255 bytes, whatever the title', () => {
    const jobId = '3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30';
    expect(ippJobName({ jobId, title: 'item label: Drill' })).toBe(`item label: Drill [${jobId}]`);
    const long = ippJobName({ jobId, title: `item label: ${'🦀'.repeat(200)}` });
    expect(long.endsWith(`[${jobId}]`)).toBe(true);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(127);
    expect(long).not.toContain('\ufffd');
  });

  it("a printer with no job history cannot tell; after one job it knows what it lacks and what it has", async () => {
    const driver = new IppDriver(printer.uri);
    const first = assetDoc('brother-ql-62x29', 'asset label: first');
    expect(await driver.checkEarlierAttempt(first, timesOutAfter(5000))).toBe('unknown');
    await driver.print(first, timesOutAfter(5000));
    await waitUntil(async () => (await driver.checkEarlierAttempt(first, timesOutAfter(5000))) === 'delivered');
    // A job the printer still processes is listed as not completed: it knows it keeps history once the job completed.
    const other = assetDoc('brother-ql-62x29', 'asset label: first');
    await waitUntil(async () => (await driver.checkEarlierAttempt(other, timesOutAfter(5000))) === 'not-delivered');
    expect(await driver.checkEarlierAttempt(first, timesOutAfter(5000))).toBe('delivered');
  });

  it('a printer that takes the job and never answers: uncertain; the printer is asked and it is not sent again', async () => {
    proxy = await startLossyIppProxy(printer.uri, 1);
    const driver = new IppDriver(proxy.uri);
    const doc = assetDoc('brother-ql-62x29', 'asset label: answer lost');
    const before = (await printer.documents()).length;
    const err = (await driver.print(doc, timesOutAfter(1500)).catch((e: unknown) => e)) as Error;
    expect(proxy.swallowed).toBe(1);
    expect(err).toBeInstanceOf(UncertainDeliveryError);
    expect(err.message).toMatch(/timed out.*may have printed it/);
    // The printer did get it...
    const docs = await printer.documents();
    expect(docs).toHaveLength(before + 1);
    expect(docs.at(-1)!.name).toContain(doc.jobId);
    expect(docs.at(-1)!.data.equals(doc.png)).toBe(true);
    // ...and says so when asked (through the same proxy, which now answers).
    expect(await driver.checkEarlierAttempt(doc, timesOutAfter(5000))).toBe('delivered');
  });

  it('a failure before the printer had the whole request is certain (nothing to ask about)', async () => {
    const sink = await startTcpSink('hang'); // never reads: a large job cannot be sent in full
    try {
      const driver = new IppDriver(`ipp://127.0.0.1:${sink.port}/ipp/print`);
      (driver as unknown as { caps: Promise<unknown> }).caps = Promise.resolve({ formats: ['image/png'], pwgResolutions: [], pwgTypes: [] });
      const big = { ...assetDoc('brother-ql-62x29'), png: Buffer.alloc(32 * 1024 * 1024) };
      const err = (await driver.print(big, timesOutAfter(500)).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(/time/i);
      expect(err).not.toBeInstanceOf(UncertainDeliveryError);
    } finally {
      await sink.close();
    }
  });
});

async function waitUntil(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('IPP driver time-outs and credentials', () => {
  it('rejects within the time-out when the server never answers, and never shows the password', async () => {
    const sink = await startTcpSink('hang');
    try {
      const driver = driverFromUri(`ipp://alice:s3cret@127.0.0.1:${sink.port}/printers/q`);
      expect(driver.target).toBe(`IPP printer ipp://127.0.0.1:${sink.port}/printers/q`);
      const t0 = Date.now();
      const err = (await driver.print(assetDoc('brother-ql-62x29'), timesOutAfter(300)).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(/time/i);
      expect(err.message).not.toContain('s3cret');
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await sink.close();
    }
  });

  it('sends the URI credentials as HTTP Basic auth and the user as requesting-user-name', async () => {
    const sink = await startTcpSink('accept');
    try {
      const driver = driverFromUri(`ipp://alice:s3cret@127.0.0.1:${sink.port}/printers/q`);
      const failed = driver.print(assetDoc('brother-ql-62x29'), timesOutAfter(1000)).catch((e: unknown) => e);
      const request = (await sink.nextJob()).toString('latin1');
      expect(request).toMatch(/^POST \/printers\/q HTTP\/1\.1\r\n/);
      expect(request).toContain(`Authorization: Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
      expect(request).toContain('Content-Type: application/ipp');
      expect(request).toContain(`ipp://127.0.0.1:${sink.port}/printers/q`);
      expect(request).toContain('\x42\x00\x14requesting-user-name\x00\x05alice');
      expect(request).not.toContain('s3cret@');
      expect(await failed).toBeInstanceOf(Error); // the sink answers nothing
    } finally {
      await sink.close();
    }
  });
});
