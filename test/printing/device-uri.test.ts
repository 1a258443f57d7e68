import { describe, expect, it } from 'vitest';
import { driverFromUri, redactUri } from '../../src/printing/device-uri.js';
import { printerName, shownPrinter } from '../../src/printing/printer-name.js';
import { parsePrinterUri } from '../../src/printing/schemes.js';

describe('driverFromUri', () => {
  it.each([
    ['file:///var/spool/labels', 'directory', 'folder /var/spool/labels'],
    ['ipp://printer.local:631/printers/Brother', 'ipp', 'IPP printer ipp://printer.local:631/printers/Brother'],
    ['ipps://printer.local/ipp/print', 'ipp', 'IPP printer ipps://printer.local:631/ipp/print'],
    ['ipp://bob:hunter2@cups.lan/printers/q', 'ipp', 'IPP printer ipp://cups.lan:631/printers/q'],
    ['socket://10.0.0.5:9100?lang=zpl', 'zpl', 'ZPL printer at 10.0.0.5:9100'],
    ['socket://10.0.0.6?lang=brother-ql', 'brother-ql', 'Brother QL at 10.0.0.6:9100'],
    ['socket://[::1]:9101?lang=brother-ql&model=QL-820NWB', 'brother-ql', 'Brother QL-820NWB at ::1:9101'],
    ['file:///dev/usb/lp0?lang=zpl', 'device', 'ZPL printer on /dev/usb/lp0'],
    ['file:///dev/usb/lp1?lang=brother-ql', 'device', 'Brother QL on /dev/usb/lp1'],
    ['file://localhost/dev/usb/lp0?model=QL-820NWB&lang=brother-ql', 'device', 'Brother QL-820NWB on /dev/usb/lp0'],
    ['file:///dev/usb/lp%30?lang=zpl', 'device', 'ZPL printer on /dev/usb/lp0'],
  ])('%s → %s', (uri, kind, target) => {
    const d = driverFromUri(uri);
    expect(d.kind).toBe(kind);
    expect(d.target).toBe(target);
  });

  it('command: needs an argument vector', () => {
    expect(driverFromUri('command:', { commandArgv: ['lp', '-d', 'Q', '{file}'] }).target).toBe('command lp');
    expect(() => driverFromUri('command:')).toThrow(/argument vector/);
  });

  it.each([
    ['', /not a URI/],
    ['printer.local:9100', /unsupported scheme printer\.local:/],
    ['http://printer.local/', /unsupported scheme http:/],
    ['socket://printer.local:9100', /add \?lang=zpl or \?lang=brother-ql/],
    ['socket://printer.local:9100?lang=escpos', /"escpos"/],
    ['socket://printer.local?lang=brother-ql&model=QL-9999', /unknown Brother QL model "QL-9999"/],
    ['file://server/share', /must be local/],
    ['file://server/dev/usb/lp0?lang=zpl', /must be local/],
    ['file:///dev/usb/lp0?lang=escpos', /add \?lang=zpl or \?lang=brother-ql \(got "escpos"\)/],
    ['file:///dev/usb/lp0?lang=', /\(got ""\)/],
    ['file:///dev/usb/lp0?model=QL-820NWB', /a folder takes no query; a device takes \?lang=/],
    ['file:///var/spool/labels?waiteof=false', /a folder takes no query.*\(got "waiteof"\)/],
    ['file:///dev/usb/lp0?lang=zpl&snmp-port=161', /\(got "snmp-port"\)/],
    ['file:///dev/usb/lp0?lang=zpl&model=ZD421', /model= is for \?lang=brother-ql/],
    ['file:///dev/usb/lp0?lang=brother-ql&model=QL-9999', /unknown Brother QL model "QL-9999"/],
    ['file:///dev/usb/lp0?lang=zpl#x', /no fragment/],
  ])('rejects %j', (uri, message) => {
    expect(() => driverFromUri(uri)).toThrow(message);
  });

  it('never echoes a password from an invalid URI', () => {
    for (const uri of ['smb://admin:pa55w0rd@nas/labels', 'socket://admin:pa55w0rd@host?lang=zpl', 'foo://a:pa55w0rd@b@c/x', 'ipp://a:pa55w0rd@/x']) {
      let message = '';
      try {
        driverFromUri(uri);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/invalid printer URI/);
      expect(message).not.toContain('pa55w0rd');
    }
    expect(redactUri('ipp://u:p@h/x')).toBe('ipp://***@h/x');
  });
});

describe('parsePrinterUri: a file: URI is a folder, or with ?lang= a device in that language', () => {
  it.each([
    ['file:///var/spool/labels', { driver: 'directory', path: '/var/spool/labels' }],
    // Without ?lang= a path under /dev is still a folder: nothing that worked before changes meaning.
    ['file:///dev/usb/lp0', { driver: 'directory', path: '/dev/usb/lp0' }],
    ['file:///dev/usb/lp0?lang=zpl', { driver: 'device', path: '/dev/usb/lp0', lang: 'zpl' }],
    ['file:///dev/usb/lp0?lang=brother-ql', { driver: 'device', path: '/dev/usb/lp0', lang: 'brother-ql', model: undefined }],
    [' file:///dev/usb/lp2?lang=brother-ql&model=QL-820NWB ', { driver: 'device', path: '/dev/usb/lp2', lang: 'brother-ql', model: 'QL-820NWB' }],
    ['file:///tmp/label%20printer?lang=zpl', { driver: 'device', path: '/tmp/label printer', lang: 'zpl' }],
  ])('%s', (uri, address) => {
    expect(parsePrinterUri(uri)).toStrictEqual(address);
  });
});

describe('printerName: what jobs show instead of the URI', () => {
  it.each([
    ['file:///var/spool/labels', 'folder'],
    ['ipp://bob:hunter2@cups.lan/printers/Brother_QL', 'Brother_QL'],
    ['ipps://printer.local/ipp/print', 'IPP printer'],
    ['socket://10.0.0.5:9100?lang=zpl', 'ZPL printer'],
    ['socket://10.0.0.6?lang=brother-ql', 'Brother QL printer'],
    ['socket://10.0.0.6?lang=brother-ql&model=QL-820NWB', 'QL-820NWB'],
    ['file:///dev/usb/lp0?lang=zpl', 'ZPL printer'],
    ['file:///dev/usb/lp0?lang=brother-ql', 'Brother QL printer'],
    ['file:///dev/usb/lp0?lang=brother-ql&model=QL-700', 'QL-700'],
    ['command:', 'command'],
  ])('%s -> %s, nothing of its address', (uri, name) => {
    expect(printerName(uri)).toBe(name);
    // A job stored with the URI (before names) is shown by name too; a stored name as it is.
    expect(shownPrinter(uri)).toBe(name);
    expect(shownPrinter('Front desk: shelf 2')).toBe('Front desk: shelf 2');
  });
});
