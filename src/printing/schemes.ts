/**
 * The device URI schemes, one table: what each URI says (parse, checked, into a
 * PrinterAddress for its driver) and what print jobs call such a printer (name).
 * CUPS-style device URIs:
 *   file:///var/spool/labels                      folder (one PNG per job)
 *   ipp://host:631/printers/q, ipps://...         IPP printer or CUPS queue (?insecure-tls=1: accept self-signed certificates)
 *   socket://host:9100?lang=zpl                   Zebra ZPL over raw TCP
 *   socket://host:9100?lang=brother-ql&model=QL-820NWB   Brother QL raster over raw TCP
 *   file:///dev/usb/lp0?lang=zpl                  a printer on a local device (USB, usblp) in its own language
 *   file:///dev/usb/lp0?lang=brother-ql&model=QL-820NWB
 *   command:                                      run the configured argument vector (PRINTER_COMMAND)
 * socket:// also takes ?waiteof=false to stop waiting for the printer to close the connection.
 * Brother QL status is read over SNMP: ?snmp-port= (default 161) and ?snmp-community= (default public).
 *
 * No driver is loaded here (config.ts names the printer from its URI, and drivers load
 * the label engine): device-uri.ts makes each address's driver, from a map the compiler
 * holds to every `driver` an address can name.
 */
import { fileURLToPath } from 'node:url';

/** A device URI, checked and taken apart: what its driver needs, by driver kind. */
export type PrinterAddress =
  | { driver: 'directory'; path: string }
  | { driver: 'ipp'; url: string; rejectUnauthorized: boolean }
  | { driver: 'zpl'; host: string; port: number; waitEof: boolean }
  | { driver: 'brother-ql'; host: string; port: number; model: string | undefined; waitEof: boolean; snmp: { port?: number; community?: string } }
  | { driver: 'device'; path: string; lang: 'zpl' }
  | { driver: 'device'; path: string; lang: 'brother-ql'; model: string | undefined }
  | { driver: 'command' };

export type DriverKind = PrinterAddress['driver'];

/** A URI that names no printer we can drive; the message never holds its credentials. */
export class PrinterUriError extends Error {
  override readonly name = 'PrinterUriError';
}

interface Scheme {
  /** The URI taken apart; `bad(why)` is the error to throw. */
  parse(u: URL, bad: (why: string) => PrinterUriError): PrinterAddress;
  /** What jobs show for such a printer (PrintJob.printer, when PRINTER_NAME is not set): never its address. */
  name(u: URL): string;
}

/** The IPP name, also for URIs of no scheme here: a CUPS queue's own name is what users call the printer. */
const ippName = (u: URL): string => /^\/(?:printers|classes)\/([A-Za-z0-9._-]{1,64})\/?$/.exec(u.pathname)?.[1] ?? 'IPP printer';

/** The language a raw printer (socket://, or a device) speaks: its ?lang=. */
function printerLanguage(u: URL, bad: (why: string) => PrinterUriError): 'zpl' | 'brother-ql' {
  const lang = u.searchParams.get('lang');
  if (lang === 'zpl' || lang === 'brother-ql') return lang;
  throw bad(`add ?lang=zpl or ?lang=brother-ql (got ${lang === null ? 'none' : JSON.stringify(lang)})`);
}

/** A raw printer's name: its Brother QL model, else the kind of printer its language says. */
function languageName(u: URL): string {
  if (u.searchParams.get('lang') === 'brother-ql') return u.searchParams.get('model')?.match(/^[A-Za-z0-9-]{1,32}$/)?.[0] ?? 'Brother QL printer';
  return 'ZPL printer';
}

const ipp: Scheme = {
  parse(u, bad) {
    if (!u.hostname) throw bad('missing host');
    const insecure = u.searchParams.get('insecure-tls');
    const url = new URL(u.href);
    url.searchParams.delete('insecure-tls');
    return { driver: 'ipp', url: url.href, rejectUnauthorized: !(insecure === '1' || insecure === 'true') };
  },
  name: ippName,
};

/** Every scheme, by URL protocol (with its colon), in the order error messages list them. */
export const SCHEMES: Readonly<Record<string, Scheme>> = {
  'file:': {
    /*
     * A device is a file: URI with ?lang=, not a scheme of its own: CUPS's file: backend
     * and brother_ql's "linux_kernel" backend (file:///dev/usb/lp0) both address a
     * printer on the usblp driver as the file it is, while CUPS's usb:// names a
     * printer by make and serial through libusb, which this is not. Without ?lang= it
     * stays the folder printer, so every URI that worked before means what it meant.
     */
    parse(u, bad) {
      if (u.host && u.host !== 'localhost') throw bad('file: URIs must be local (file:///path)');
      if (u.hash) throw bad('file: URIs take no fragment');
      const path = fileURLToPath(u);
      if (!u.search) return { driver: 'directory', path };
      const unknown = [...u.searchParams.keys()].find((k) => k !== 'lang' && k !== 'model');
      if (unknown !== undefined || !u.searchParams.has('lang')) {
        throw bad(`a folder takes no query; a device takes ?lang=zpl or ?lang=brother-ql (and &model=)${unknown ? ` (got ${JSON.stringify(unknown)})` : ''}`);
      }
      const lang = printerLanguage(u, bad);
      if (lang === 'zpl') {
        if (u.searchParams.has('model')) throw bad('model= is for ?lang=brother-ql');
        return { driver: 'device', path, lang };
      }
      return { driver: 'device', path, lang, model: u.searchParams.get('model') ?? undefined };
    },
    name: (u) => (u.searchParams.has('lang') ? languageName(u) : 'folder'),
  },
  'ipp:': ipp,
  'ipps:': ipp,
  'socket:': {
    parse(u, bad) {
      if (!u.hostname) throw bad('missing host');
      if (u.username || u.password) throw bad('socket: URIs take no credentials');
      const port = u.port ? Number(u.port) : 9100;
      const host = u.hostname.replace(/^\[(.*)\]$/, '$1'); // IPv6 literal
      const waitEof = u.searchParams.get('waiteof') !== 'false';
      if (printerLanguage(u, bad) === 'zpl') return { driver: 'zpl', host, port, waitEof };
      // Its status is read over SNMP (status/brother-ql.ts), not on the print port.
      const snmpPort = u.searchParams.get('snmp-port');
      if (snmpPort !== null && !/^\d{1,5}$/.test(snmpPort)) throw bad('snmp-port must be a port number');
      if (snmpPort !== null && (Number(snmpPort) < 1 || Number(snmpPort) > 65535)) throw bad('snmp-port must be 1-65535');
      const community = u.searchParams.get('snmp-community') ?? undefined;
      const snmp = { ...(snmpPort !== null ? { port: Number(snmpPort) } : {}), ...(community !== undefined ? { community } : {}) };
      return { driver: 'brother-ql', host, port, model: u.searchParams.get('model') ?? undefined, waitEof, snmp };
    },
    name: languageName,
  },
  'command:': {
    parse: () => ({ driver: 'command' }),
    name: () => 'command',
  },
};

const EXPECTED = (() => {
  const names = Object.keys(SCHEMES);
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
})();

/** The URI with any user:password replaced, safe for logs and error messages. */
export function redactUri(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** The error for a URI (trimmed) that names no printer we can drive, and why. */
export function printerUriError(uri: string, why: string): PrinterUriError {
  return new PrinterUriError(`invalid printer URI "${redactUri(uri)}": ${why}`);
}

/** A device URI checked and taken apart (surrounding spaces ignored); PrinterUriError says what is wrong with it. */
export function parsePrinterUri(uri: string): PrinterAddress {
  const trimmed = uri.trim();
  const bad = (why: string) => printerUriError(trimmed, why);
  let u: URL;
  try {
    u = new URL(trimmed);
  } catch {
    throw bad(`not a URI (expected ${EXPECTED})`);
  }
  const scheme = SCHEMES[u.protocol];
  if (!scheme) throw bad(`unsupported scheme ${u.protocol} (expected ${EXPECTED})`);
  return scheme.parse(u, bad);
}

/**
 * The name jobs show for a printer (PrintJob.printer) when PRINTER_NAME is not set:
 * never its address, which tells a print token where the print server is. A CUPS
 * queue's own name, else what kind of printer it is. Lenient: a URI its driver would
 * refuse still gets a name (the driver's error comes when printing starts).
 */
export function printerName(uri: string): string {
  let u: URL;
  try {
    u = new URL(uri.trim());
  } catch {
    return 'printer';
  }
  return (SCHEMES[u.protocol]?.name ?? ippName)(u);
}

/** A device URI as jobs stored it before printer names: one of these schemes (and http:, https:, as always recognised). */
export const STORED_URI = new RegExp(`^(?:${[...Object.keys(SCHEMES).map((s) => s.slice(0, -1)), 'https?'].join('|')}):`, 'i');
