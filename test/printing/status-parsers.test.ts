/**
 * Printer status parsers against replies printers published or that the makers'
 * references lay out byte for byte (each case names its source). No I/O here: the
 * readers meet their peers in status-readers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { decodeQlStatus, qlStatusFromReply } from '../../src/printing/status/brother-ql.js';
import { ippPrinterStatus, pwgSize, splitReason, type IppAttributes } from '../../src/printing/status/ipp.js';
import { readPrinterStatus } from '../../src/printing/status/index.js';
import { parseErrorQuery, parseHostStatus, stxBlocks, zebraStatus } from '../../src/printing/status/zebra.js';
import type { PrinterDriver } from '../../src/printing/drivers/types.js';
import type { IppValue } from '../../src/printing/drivers/ipp-codec.js';
import { qlStatusBytes } from '../helpers/brother-ql-peer.js';
import { errorQueryReply, hostStatusReply } from '../helpers/zebra-peer.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const AT = new Date('2026-11-28T04:00:00Z');

describe('Brother QL status reply', () => {
  // pklaus/brother_ql issue #69 (2019-12-03): a QL-800 with the red/black DK-22251 roll that came with it,
  // printed by brother_ql as array('B', [128, 32, 66, 52, 56, 48, 0, 0, 0, 0, 62, 10, 0, 0, 35, 0, …, 129, …]).
  const QL800_DK22251 = Buffer.from([128, 32, 66, 52, 56, 48, 0, 0, 0, 0, 62, 10, 0, 0, 35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 129, 0, 0, 0, 0, 0, 0]);
  // pklaus/brother_ql issue #28 (2018-01-05): a QL-1050 loaded with 102 x 152 mm die-cut labels (brother_ql's 102x152, sent as 153 mm).
  const QL1050_102X152 = hex('80 20 42 30 50 30 00 00 00 00 66 0B 00 00 2E 00 00 99 00 00 00 00 00 00 00 00 00 00 00 00 00 00');
  // pklaus/brother_ql issue #17 (2017-04-20): a QL-500 with 24 mm round die-cut labels (d24).
  const QL500_D24 = hex('80 20 42 30 4F 30 00 00 00 00 18 0B 00 00 12 00 00 18 00 00 00 00 00 00 00 00 00 00 00 00 00 00');
  // Brother Raster Command Reference status table (as pklaus/brother_ql reader.py decodes it): a QL-820NWB (34 41) with
  // DK-22205, 62 mm (3E) continuous (0A), no errors, reply to a status request (byte 18 = 00), receiving (byte 19 = 00).
  const QL820_DK22205 = hex('80 20 42 34 41 30 00 00 00 00 3E 0A 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00');

  it('reads the red/black roll from byte 14 (0x23) of a QL-800 reply: 62 mm continuous, red, only the red/black stock', () => {
    const s = qlStatusFromReply(QL800_DK22251, AT);
    expect(s).toEqual({
      state: 'ready',
      reasons: [],
      message: '62 mm continuous red/black roll loaded (DK-22251).',
      media: { description: '62 mm continuous red/black roll (DK-22251)', widthMm: 62, lengthMm: 0, red: true, stocks: ['brother-ql-62-red'] },
      checkedAt: '2026-11-28T04:00:00.000Z',
    });
  });

  it('DK-22205 on a QL-820NWB: the 62 mm continuous stock, not red', () => {
    const s = qlStatusFromReply(QL820_DK22205, AT);
    expect(s.state).toBe('ready');
    expect(s.media).toEqual({ description: '62 mm continuous roll (DK-22205)', widthMm: 62, lengthMm: 0, red: false, stocks: ['brother-ql-62'] });
    expect(s.message).toBe('62 mm continuous roll loaded (DK-22205).');
  });

  it('die-cut labels on a QL-1050: width 102, length 153 (byte 17), the 102 x 152 stock; byte 14 = 0x2E is not red', () => {
    const s = qlStatusFromReply(QL1050_102X152, AT);
    expect(s.media).toEqual({ description: '102 × 153 mm labels (DK-11241)', widthMm: 102, lengthMm: 153, red: false, stocks: ['brother-ql-102x152'] });
    expect(s.state).toBe('ready');
  });

  it('labels we have no stock for still say what is loaded', () => {
    const s = qlStatusFromReply(QL500_D24, AT);
    expect(s.media).toEqual({ description: '24 × 24 mm labels', widthMm: 24, lengthMm: 24, red: false, stocks: [] });
  });

  it('error bits: no media, cover open, replace media, cutter jam; "cannot feed" at the end of the roll is not a jam', () => {
    const withBytes = (changes: Record<number, number>): Buffer => {
      const b = Buffer.from(QL820_DK22205);
      for (const [i, v] of Object.entries(changes)) b[Number(i)] = v;
      return b;
    };
    const noRoll = qlStatusFromReply(withBytes({ 8: 0x01, 9: 0x40, 10: 0, 11: 0, 18: 0x02 }), AT);
    expect([noRoll.state, noRoll.reasons, noRoll.media, noRoll.message]).toEqual(['attention', ['media-empty'], null, 'Out of labels.']);
    const cover = qlStatusFromReply(withBytes({ 9: 0x10, 18: 0x02 }), AT);
    expect([cover.state, cover.reasons, cover.message]).toEqual(['attention', ['cover-open'], 'Cover open. 62 mm continuous roll loaded (DK-22205).']);
    expect(qlStatusFromReply(withBytes({ 9: 0x01, 18: 0x02 }), AT).reasons).toEqual(['wrong-media']);
    expect(qlStatusFromReply(withBytes({ 8: 0x04, 18: 0x02 }), AT).reasons).toEqual(['cutter-jam']);
    expect(qlStatusFromReply(withBytes({ 9: 0x40, 18: 0x02 }), AT).reasons).toEqual(['media-jam']);
    expect(qlStatusFromReply(withBytes({ 22: 0x01, 18: 0x05 }), AT).reasons).toEqual(['cover-open']); // notification: cover open
    expect(qlStatusFromReply(withBytes({ 18: 0x02 }), AT).reasons).toEqual(['other']); // an error reply without bits
    expect(qlStatusFromReply(withBytes({ 8: 0x10 }), AT).state).toBe('ready'); // "main unit in use" is busy, not wrong
  });

  it('phase 01 is printing', () => {
    const b = Buffer.from(QL820_DK22205);
    b[19] = 0x01;
    const s = qlStatusFromReply(b, AT);
    expect([s.state, s.message]).toEqual(['printing', 'Printing. 62 mm continuous roll loaded (DK-22205).']);
  });

  it('refuses what is not a status reply: the ASCII text of pklaus/brother_ql issue #25, short replies', () => {
    expect(() => decodeQlStatus(hex('61 72 72 61 79 28 27 42 27 2C 20 5B 31 32 38 2C 20 33 32 2C 20 36 36 2C 20 35 32 2C 20 35 36 2C 20 34 38'))).toThrow(/not a Brother QL status reply/);
    expect(() => decodeQlStatus(QL820_DK22205.subarray(0, 31))).toThrow(/31 bytes/);
  });

  it('the test peer builds exactly these bytes (so the reader tests talk to a faithful printer)', () => {
    const base = { model: 'QL-820NWB', media: 'continuous', widthMm: 62, lengthMm: 0, twoColour: false, errors1: 0, errors2: 0, printing: false, notification: 0 } as const;
    expect(qlStatusBytes(base).toString('hex')).toBe(QL820_DK22205.toString('hex'));
    // The QL-800 reply of issue #69 but for its undocumented byte 25, which the peer leaves 0.
    const red = Buffer.from(QL800_DK22251);
    red[25] = 0;
    expect(qlStatusBytes({ ...base, model: 'QL-800', twoColour: true }).toString('hex')).toBe(red.toString('hex'));
  });
});

describe('Zebra ~HS and ~HQES', () => {
  // Layout: ZPL Programming Guide, ~HS (three <STX>…<ETX><CR><LF> strings) and ~HQ/~WQ (ERRORS/WARNINGS flags).
  const S1 = (paperOut: 0 | 1, pause: 0 | 1, formats = '000') => `\x02030,${paperOut},${pause},1218,${formats},0,0,0,000,0,0,0\x03\r\n`;
  const S2 = (headUp: 0 | 1, remaining = '00000000') => `\x02001,0,${headUp},0,1,2,6,0,${remaining},1,000\x03\r\n`;
  const S3 = '\x021234,0\x03\r\n';
  const HQES = (errors: string, warnings = '00000000') =>
    `\x02\r\n\r\n  PRINTER STATUS\r\n   ERRORS:         ${errors === '00000000' ? 0 : 1} 00000000 ${errors}\r\n   WARNINGS:       ${warnings === '00000000' ? 0 : 1} 00000000 ${warnings}\r\n\x03\r\n`;

  it('splits <STX>…<ETX> blocks and leaves an unfinished one out', () => {
    expect(stxBlocks(`${S1(0, 0)}${S2(0)}\x021234`)).toEqual(['030,0,0,1218,000,0,0,0,000,0,0,0', '001,0,0,0,1,2,6,0,00000000,1,000']);
  });

  it('a printer with nothing to say is ready', () => {
    const text = S1(0, 0) + S2(0) + S3 + HQES('00000000');
    const hs = parseHostStatus(text)!;
    expect(hs).toMatchObject({ paperOut: false, paused: false, headUp: false, labelLengthDots: 1218, labelsRemaining: 0 });
    expect(zebraStatus({ hs, hqes: parseErrorQuery(text) }, false, AT)).toEqual({ state: 'ready', reasons: [], message: 'Ready.', media: null, checkedAt: AT.toISOString() });
  });

  it('paper out, pause and head up (a printer that still answers ~HS) need a person', () => {
    const s = zebraStatus({ hs: parseHostStatus(S1(1, 1) + S2(1) + S3) }, false, AT);
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['media-empty', 'head-open', 'paused'], 'Out of labels. Print head open. Paused.']);
  });

  it('labels left in the batch (String 2 field 9, not the unused String 1 field iii) or formats in the buffer: printing', () => {
    expect(zebraStatus({ hs: parseHostStatus(S1(0, 0) + S2(0, '00000003') + S3) }).state).toBe('printing');
    expect(zebraStatus({ hs: parseHostStatus(S1(0, 0, '002') + S2(0) + S3) }).state).toBe('printing');
  });

  it('~HQES "ERRORS: 1 00000000 00000005" is media out + head open (the guide\'s example), even with ~HS silent', () => {
    const q = parseErrorQuery(HQES('00000005'))!;
    expect(q).toEqual({ errors: 5, errorsHigh: 0, warnings: 0 });
    const s = zebraStatus({ hqes: q }, false, AT);
    expect([s.state, s.reasons]).toEqual(['attention', ['media-empty', 'head-open']]);
  });

  it('~HQES flags: ribbon out, cutter fault, over-temperature; warning "paper near end" is media-low; cleaning is words', () => {
    expect(zebraStatus({ hqes: parseErrorQuery(HQES('0000000A'))! }).reasons).toEqual(['ribbon-out', 'cutter-jam']);
    expect(zebraStatus({ hqes: parseErrorQuery(HQES('00000010'))! }).reasons).toEqual(['overheated']);
    const warn = zebraStatus({ hs: parseHostStatus(S1(0, 0) + S2(0) + S3), hqes: parseErrorQuery(HQES('00000000', '0000000A'))! });
    expect([warn.state, warn.reasons, warn.message]).toEqual(['ready', ['media-low'], 'Labels running low. Clean the print head.']);
  });

  it('no ~HS answer is never ready: unknown at first, attention once the printer had answered before', () => {
    expect(zebraStatus({}, false).state).toBe('unknown');
    expect(zebraStatus({ hqes: parseErrorQuery(HQES('00000000')) }, false).state).toBe('unknown');
    const silent = zebraStatus({}, true);
    expect([silent.state, silent.reasons]).toEqual(['attention', ['other']]);
    expect(silent.message).toMatch(/stopped answering.*out of labels or ribbon, or with the print head open/);
  });

  it('ignores what is not a host status', () => {
    expect(parseHostStatus('\x02hello\x03\r\n\x02world\x03\r\n')).toBeUndefined();
    expect(parseHostStatus(S1(0, 0))).toBeUndefined();
    expect(parseErrorQuery('\x02PRINTER STATUS\r\nERRORS: x\x03')).toBeUndefined();
  });

  it('the test peer answers exactly these bytes', () => {
    const state = { paperOut: true, paused: true, headOpen: true, ribbonOut: false, overTemperature: false, paperNearEnd: false, formatsInBuffer: 0, labelsRemaining: 0, labelLengthDots: 1218, hostStatus: 'always', errorQuery: true } as const;
    expect(hostStatusReply(state)).toBe(S1(1, 1) + S2(1) + S3);
    expect(errorQueryReply(state)).toBe(HQES('00000005'));
  });
});

describe('IPP printer status', () => {
  const attrs = (a: Record<string, IppValue[]>): IppAttributes => new Map(Object.entries(a));
  // media-col-ready as ippeveprinter answers it (ipptool -tv, CUPS 2.4.2; sizes in 1/100 mm, PWG 5100.7).
  const dk22205 = { 'media-size': [{ 'x-dimension': [6200], 'y-dimension': [3048000] }], 'media-size-name': ['roll_dk22205-continuous_62x30480mm'], 'media-source': ['main-roll'], 'media-type': ['continuous'] };

  it('splits severity suffixes; a keyword without one is an error (RFC 8011 §5.4.12)', () => {
    expect(splitReason('media-empty-report')).toEqual({ keyword: 'media-empty', severity: 'report' });
    expect(splitReason('media-low-warning')).toEqual({ keyword: 'media-low', severity: 'warning' });
    expect(splitReason('media-jam-error')).toEqual({ keyword: 'media-jam', severity: 'error' });
    expect(splitReason('cover-open')).toEqual({ keyword: 'cover-open', severity: 'error' });
  });

  it('idle, none, DK-22205 loaded: ready with the 62 mm continuous stock', () => {
    const s = ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['none'], 'media-col-ready': [dk22205] }), AT);
    expect(s).toEqual({
      state: 'ready',
      reasons: [],
      message: '62 mm continuous roll loaded (DK-22205).',
      // IPP does not say whether the roll is red/black: either 62 mm continuous stock may be loaded.
      media: { description: '62 mm continuous roll (DK-22205)', widthMm: 62, lengthMm: 0, red: null, stocks: ['brother-ql-62', 'brother-ql-62-red'] },
      checkedAt: AT.toISOString(),
    });
  });

  it('media-empty needs a person whatever its suffix (ippeveprinter says -report while idle)', () => {
    const s = ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['media-empty-report'], 'media-col-ready': [dk22205] }), AT);
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['media-empty'], 'Out of labels (62 mm continuous roll, DK-22205).']);
  });

  it('stopped with a jam (-error) and an open cover (no suffix): attention, with the printer\'s own words', () => {
    const s = ippPrinterStatus(attrs({ 'printer-state': [5], 'printer-state-reasons': ['media-jam-error', 'cover-open'], 'printer-state-message': ['Close the roll cover'] }), AT);
    expect([s.state, s.reasons, s.message]).toEqual(['attention', ['media-jam', 'cover-open'], 'Labels jammed. Cover open. The printer says: Close the roll cover.']);
  });

  it('a job waiting for media (processing, media-needed-warning) needs a person; processing alone is printing', () => {
    expect(ippPrinterStatus(attrs({ 'printer-state': [4], 'printer-state-reasons': ['media-needed-warning'] })).state).toBe('attention');
    expect(ippPrinterStatus(attrs({ 'printer-state': [4], 'printer-state-reasons': ['none'] })).state).toBe('printing');
  });

  it('reports and warnings we have no word for are left out; an unnamed error is "other"; stopped alone is paused', () => {
    const low = ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['marker-supply-low-report', 'toner-low-warning', 'media-low-report'] }));
    expect([low.state, low.reasons]).toEqual(['ready', ['media-low']]);
    expect(ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['interpreter-resource-unavailable-error'] })).reasons).toEqual(['other']);
    expect(ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['cups-waiting-for-job-completed'] })).state).toBe('ready');
    expect(ippPrinterStatus(attrs({ 'printer-state': [5], 'printer-state-reasons': ['none'] })).reasons).toEqual(['paused']);
    expect(ippPrinterStatus(attrs({ 'printer-state': [5], 'printer-state-reasons': ['moving-to-paused-report'] })).reasons).toEqual(['paused']);
  });

  it('without media-col-ready, the size comes from media-ready\'s PWG name; several trays list every stock', () => {
    const s = ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['none'], 'media-ready': ['na_index-4x6_4x6in', 'om_dk11209_62x29mm'] }));
    expect(s.media).toEqual({
      description: '101.6 × 152.4 mm labels (na_index-4x6_4x6in); 62 × 29 mm labels (DK-11209)',
      widthMm: 101.6,
      lengthMm: 152.4,
      red: null,
      stocks: ['brother-ql-102x152', 'zebra-4x6-203dpi', 'zebra-4x6-300dpi', 'brother-ql-62x29'], // 4 x 6 in is 102 x 152 mm within a millimetre
    });
    expect(pwgSize('roll_dk2251-continuous_2.4x600in')).toEqual({ widthMm: 60.96, lengthMm: 15240 });
    expect(pwgSize('custom')).toBeUndefined();
  });

  it('LPrint\'s name for the red/black roll (roll_dk2251-…) is red; no black-only stock matches it', () => {
    const s = ippPrinterStatus(attrs({ 'printer-state': [3], 'printer-state-reasons': ['none'], 'media-ready': ['roll_dk2251-continuous_2.4x600in'] }));
    expect(s.media).toMatchObject({ red: true, lengthMm: 0, stocks: [] });
    expect(s.media!.description).toBe('61 mm continuous red/black roll (DK-22251)');
  });
});

describe('readPrinterStatus', () => {
  it('drivers that cannot ask are unknown, never ready', async () => {
    const s = await readPrinterStatus(driverFromUri('file:///tmp/labels'));
    expect([s.state, s.reasons, s.media]).toEqual(['unknown', [], null]);
    expect(s.message).toMatch(/folder printer cannot report/);
    expect((await readPrinterStatus(driverFromUri('command:', { commandArgv: ['lp', '{file}'] }))).state).toBe('unknown');
  });

  it('bounds the time: a driver that never answers is offline after timeoutMs; one that throws is unknown', async () => {
    const hanging: PrinterDriver = { kind: 'ipp', target: 'a hanging printer', print: () => Promise.resolve(), status: () => new Promise(() => {}) };
    const t0 = Date.now();
    const s = await readPrinterStatus(hanging, undefined, 200);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect([s.state, s.reasons, s.message]).toEqual(['offline', ['offline'], 'Not reachable: a hanging printer did not answer within 200 ms.']);
    const broken: PrinterDriver = { kind: 'zpl', target: 'a broken driver', print: () => Promise.resolve(), status: () => Promise.reject(new Error('bug')) };
    expect((await readPrinterStatus(broken)).state).toBe('unknown');
  });

  it('the Brother QL URI takes the SNMP port and community; a bad port is refused', () => {
    expect(driverFromUri('socket://10.0.0.6?lang=brother-ql&snmp-port=1161&snmp-community=labels').kind).toBe('brother-ql');
    expect(() => driverFromUri('socket://10.0.0.6?lang=brother-ql&snmp-port=99999')).toThrow(/snmp-port must be 1-65535/);
    expect(() => driverFromUri('socket://10.0.0.6?lang=brother-ql&snmp-port=x')).toThrow(/snmp-port must be a port number/);
    for (const uri of ['socket://10.0.0.6?lang=brother-ql', 'socket://10.0.0.5?lang=zpl', 'ipp://printer.local/ipp/print']) expect(driverFromUri(uri).status).toBeTypeOf('function');
    expect(driverFromUri('file:///tmp/labels').status).toBeUndefined();
  });
});
