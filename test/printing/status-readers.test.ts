/**
 * Status readers against printers on loopback: the Brother QL peer (silent raw port +
 * SNMP agent with the 32-byte reply), the Zebra peer (~HS / ~HQES as the ZPL guide lays
 * them out, silent where Zebra says it is) and CUPS's ippeveprinter started with real
 * label media and changed while it runs (its /media form and STATE: control jobs).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import type { PrinterDriver } from '../../src/printing/drivers/types.js';
import { readPrinterStatus } from '../../src/printing/status/index.js';
import { QL_ERROR_1, QL_ERROR_2, startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { startZebraPeer, type ZebraPeer } from '../helpers/zebra-peer.js';
import { decodeZplGraphic } from './decoders.js';
import { assetDoc, never } from './fixtures.js';

const status = (driver: PrinterDriver, timeoutMs?: number) => readPrinterStatus(driver, undefined, timeoutMs);

describe('Brother QL over SNMP', () => {
  let peer: QlPeer | undefined;
  afterEach(async () => {
    await peer?.close();
    peer = undefined;
  });

  it('DK-22205 loaded, nothing wrong: ready, with the 62 mm continuous stock', async () => {
    peer = await startQlPeer();
    const s = await status(driverFromUri(peer.uri));
    expect([s.state, s.reasons, s.message]).toEqual(['ready', [], '62 mm continuous roll loaded (DK-22205).']);
    expect(s.media).toEqual({ description: '62 mm continuous roll (DK-22205)', widthMm: 62, lengthMm: 0, red: false, stocks: ['brother-ql-62'] });
    expect(peer.snmpRequests).toBe(1);
    expect(Date.parse(s.checkedAt)).toBeGreaterThan(Date.now() - 10_000);
  });

  it('follows the printer as it changes: out of labels, cover open, printing, a die-cut roll, the red/black roll, wrong roll', async () => {
    peer = await startQlPeer();
    const driver = driverFromUri(peer.uri);
    peer.set({ media: 'none', errors1: QL_ERROR_1.noMedia });
    let s = await status(driver);
    expect([s.state, s.reasons, s.media, s.message]).toEqual(['attention', ['media-empty'], null, 'Out of labels.']);

    peer.set({ media: 'continuous', errors1: 0, errors2: QL_ERROR_2.coverOpen });
    s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['attention', ['cover-open']]);
    expect(s.message).toBe('Cover open. 62 mm continuous roll loaded (DK-22205).');

    peer.set({ errors2: 0, printing: true });
    expect((await status(driver)).state).toBe('printing');

    peer.set({ printing: false, media: 'die-cut', widthMm: 62, lengthMm: 29 });
    s = await status(driver);
    expect([s.state, s.media?.stocks, s.media?.description]).toEqual(['ready', ['brother-ql-62x29'], '62 × 29 mm labels (DK-11209)']);

    peer.set({ media: 'continuous', lengthMm: 0, twoColour: true });
    s = await status(driver);
    expect(s.media).toMatchObject({ red: true, widthMm: 62, lengthMm: 0, stocks: ['brother-ql-62-red'] }); // no black-only stock prints on it

    peer.set({ errors2: QL_ERROR_2.replaceMedia }); // the printer refused a job for another roll
    s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['attention', ['wrong-media']]);
    expect(s.message).toMatch(/^Wrong roll loaded\. 62 mm continuous red\/black roll loaded \(DK-22251\)\.$/);
  });

  it('prints on the raw port as before while status goes over SNMP', async () => {
    peer = await startQlPeer();
    const driver = driverFromUri(peer.uri);
    await Promise.all([driver.print(assetDoc('brother-ql-62'), never()), peer.sink.nextJob()]);
    expect((await status(driver)).state).toBe('ready');
    expect(peer.sink.received()).toHaveLength(1);
  });

  it('SNMP off but the printer up: unknown, saying so, never ready', async () => {
    peer = await startQlPeer();
    await peer.stopSnmp();
    const t0 = Date.now();
    const s = await status(driverFromUri(peer.uri));
    expect([s.state, s.reasons]).toEqual(['unknown', []]);
    expect(s.message).toMatch(/accepts print jobs on port \d+ but does not answer SNMP.*switch SNMP on/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a reply that is not a status: unknown', async () => {
    peer = await startQlPeer();
    peer.setReply(Buffer.from('array(\'B\', [128, 32, 66])'));
    const s = await status(driverFromUri(peer.uri));
    expect(s.state).toBe('unknown');
    expect(s.message).toMatch(/not a Brother QL status reply/);
  });

  it('nothing listening: offline within the time limit', async () => {
    const raw = await refusedPort();
    const t0 = Date.now();
    const s = await status(driverFromUri(`socket://127.0.0.1:${raw}?lang=brother-ql&snmp-port=${raw}`));
    expect([s.state, s.reasons]).toEqual(['offline', ['offline']]);
    expect(s.message).toMatch(/^Not reachable: /);
    expect(Date.now() - t0).toBeLessThan(5500);
  });
});

describe('Zebra ~HS / ~HQES', () => {
  let peer: ZebraPeer | undefined;
  let sink: TcpSink | undefined;
  afterEach(async () => {
    await peer?.close();
    await sink?.close();
    peer = undefined;
    sink = undefined;
  });

  it('ready, then paused, head open, printing; status queries are not print jobs', async () => {
    peer = await startZebraPeer();
    const driver = driverFromUri(peer.uri);
    let s = await status(driver);
    expect([s.state, s.reasons, s.message, s.media]).toEqual(['ready', [], 'Ready.', null]);
    expect(peer.queries).toEqual({ hs: 1, hqes: 1 });

    peer.set({ paused: true });
    s = await status(driver);
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['paused'], 'Paused.']);

    peer.set({ paused: false, labelsRemaining: 3 });
    expect((await status(driver)).state).toBe('printing');

    peer.set({ labelsRemaining: 0, headOpen: true });
    s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['attention', ['head-open']]);

    const doc = assetDoc('zebra-2x1-203dpi');
    const [, job] = await Promise.all([driver.print(doc, never()), peer.sink.nextJob()]);
    expect(decodeZplGraphic(job.toString('latin1')).printWidth).toBe(406);
    expect(peer.sink.received()).toHaveLength(1); // four status queries, one print job
  });

  it('out of labels: ~HS falls silent as Zebra documents, ~HQES names it', async () => {
    peer = await startZebraPeer({ paperOut: true });
    const t0 = Date.now();
    const s = await status(driverFromUri(peer.uri));
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['media-empty'], 'Out of labels.']);
    expect(Date.now() - t0).toBeLessThan(1400); // the ~HQES answer ends the wait, not the 1.5 s reply time-out
  });

  it('an older printer that still answers ~HS when out of labels (with pause) says both', async () => {
    peer = await startZebraPeer({ paperOut: true, paused: true, hostStatus: 'always', errorQuery: false });
    const s = await status(driverFromUri(peer.uri));
    expect([s.state, s.reasons]).toEqual(['attention', ['media-empty', 'paused']]);
  });

  it('silent on both: unknown for a printer never heard, attention for one that answered before', async () => {
    peer = await startZebraPeer({ errorQuery: false });
    const driver = driverFromUri(peer.uri);
    expect((await status(driver)).state).toBe('ready');
    peer.set({ paperOut: true }); // now silent on ~HS, and no ~HQES
    const t0 = Date.now();
    const s = await status(driver);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect([s.state, s.reasons]).toEqual(['attention', ['other']]);
    expect(s.message).toMatch(/stopped answering its host status/);

    const fresh = await status(driverFromUri(peer.uri)); // another driver: never heard this printer
    expect([fresh.state, fresh.reasons]).toEqual(['unknown', []]);
    expect(fresh.message).toMatch(/did not answer ~HS/);
  });

  it('a raw port that never answers (not a Zebra, or a hung one): unknown, never ready, in bounded time', async () => {
    sink = await startTcpSink('hang');
    const t0 = Date.now();
    const s = await status(driverFromUri(`socket://${sink.host}:${sink.port}?lang=zpl`));
    expect(s.state).toBe('unknown');
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('nothing listening: offline', async () => {
    const s = await status(driverFromUri(`socket://127.0.0.1:${await refusedPort()}?lang=zpl`));
    expect([s.state, s.reasons]).toEqual(['offline', ['offline']]);
    expect(s.message).toMatch(/ECONNREFUSED/);
  });
});

describe('IPP (ippeveprinter with real label media)', () => {
  const ATTRIBUTES = fileURLToPath(new URL('../fixtures/ippeve/ql-820nwb.conf', import.meta.url));
  const DK22205 = { size0: 'roll_dk22205-continuous_62x30480mm', type0: 'continuous', level0: '100' };
  let printer: IppEvePrinter;
  let driver: PrinterDriver;
  beforeAll(async () => {
    printer = await startIppEvePrinter({ attributesFile: ATTRIBUTES, controlJobs: true, name: 'QL820' });
    driver = driverFromUri(printer.uri);
  });
  afterAll(async () => {
    await printer?.stop();
  });
  afterEach(async () => {
    // Back to the loaded DK-22205 and no reasons, whatever a test changed.
    await printer.setMedia(DK22205);
    await printer.control('STATE: -media-jam,cover-open,paused');
  });

  it('as started from its attribute file: ready, DK-22205 from media-col-ready', async () => {
    const s = await status(driver);
    expect([s.state, s.reasons, s.message]).toEqual(['ready', [], '62 mm continuous roll loaded (DK-22205).']);
    expect(s.media).toEqual({ description: '62 mm continuous roll (DK-22205)', widthMm: 62, lengthMm: 0, red: null, stocks: ['brother-ql-62', 'brother-ql-62-red'] }); // IPP does not say red or not
  });

  it('the roll runs out (level 0 on the /media form): attention, media-empty', async () => {
    await printer.setMedia({ ...DK22205, level0: '0' });
    const s = await status(driver);
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['media-empty'], 'Out of labels (62 mm continuous roll, DK-22205).']);
  });

  it('running low is said but still ready', async () => {
    await printer.setMedia({ ...DK22205, level0: '10' });
    const s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['ready', ['media-low']]);
  });

  it('another roll loaded: the stocks follow (die-cut 62 x 29, then the red/black roll)', async () => {
    await printer.setMedia({ size0: 'om_dk11209_62x29mm', type0: 'labels', level0: '100' });
    let s = await status(driver);
    expect([s.state, s.media?.stocks, s.media?.lengthMm, s.media?.description]).toEqual(['ready', ['brother-ql-62x29'], 29, '62 × 29 mm labels (DK-11209)']);
    await printer.setMedia({ size0: 'roll_dk22251-continuous_62x15240mm', type0: 'continuous', level0: '100' });
    s = await status(driver);
    expect(s.media).toMatchObject({ red: true, widthMm: 62, lengthMm: 0, stocks: ['brother-ql-62-red'] });
  });

  it('a jam and an open cover (STATE: control job), then cleared', async () => {
    await printer.control('STATE: +media-jam,cover-open');
    let s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['attention', ['media-jam', 'cover-open']]);
    expect(s.message).toMatch(/^Labels jammed\. Cover open\./);
    await printer.control('STATE: -media-jam,cover-open');
    s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['ready', []]);
  });

  it('paused', async () => {
    await printer.control('STATE: +paused');
    const s = await status(driver);
    expect([s.state, s.reasons]).toEqual(['attention', ['paused']]);
  });

  it('nothing listening: offline; a server that never answers: offline after the time limit', async () => {
    const refused = await status(driverFromUri(`ipp://127.0.0.1:${await refusedPort()}/ipp/print`));
    expect([refused.state, refused.reasons]).toEqual(['offline', ['offline']]);
    expect(refused.message).toMatch(/ECONNREFUSED/);
    const hung = await startTcpSink('hang');
    try {
      const t0 = Date.now();
      const s = await status(driverFromUri(`ipp://127.0.0.1:${hung.port}/ipp/print`), 500);
      expect(s.state).toBe('offline');
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await hung.close();
    }
  });
});
