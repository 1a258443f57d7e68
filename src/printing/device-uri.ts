/**
 * CUPS-style device URIs → printer drivers:
 *   file:///var/spool/labels                      folder (one PNG per job)
 *   ipp://host:631/printers/q, ipps://...         IPP printer or CUPS queue (?insecure-tls=1: accept self-signed certificates)
 *   socket://host:9100?lang=zpl                   Zebra ZPL over raw TCP
 *   socket://host:9100?lang=brother-ql&model=QL-820NWB   Brother QL raster over raw TCP
 *   command:                                      run opts.commandArgv (configured separately, e.g. PRINTER_COMMAND)
 * socket:// also takes ?waiteof=false to stop waiting for the printer to close the connection.
 * Brother QL status is read over SNMP: ?snmp-port= (default 161) and ?snmp-community= (default public).
 */
import { fileURLToPath } from 'node:url';
import { BrotherQlDriver } from './drivers/brother-ql.js';
import { CommandDriver } from './drivers/command.js';
import { DirectoryDriver } from './drivers/directory.js';
import { IppDriver } from './drivers/ipp.js';
import { ZplDriver } from './drivers/zpl.js';
import type { PrinterDriver } from './drivers/types.js';

export interface DriverOptions {
  /** Argument vector for command: URIs, e.g. ["lp", "-d", "Brother", "{file}"]. */
  commandArgv?: string[];
}

/** The URI with any user:password replaced, safe for logs and error messages. */
export function redactUri(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/**
 * Why a device URI names no printer this server can drive (the message driverFromUri would
 * throw, credentials redacted), or undefined when it does. Nothing is contacted: a printer
 * defined through the API or the configuration file is checked as PRINTER_URI is at start.
 */
export function deviceUriProblem(uri: string, opts: DriverOptions = {}): string | undefined {
  try {
    driverFromUri(uri, opts);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function driverFromUri(uri: string, opts: DriverOptions = {}): PrinterDriver {
  // Time-outs come with the caller's signal (the print worker owns them).
  return makeDriver(uri.trim(), opts);
}

function makeDriver(uri: string, opts: DriverOptions): PrinterDriver {
  const bad = (why: string): Error => new Error(`invalid printer URI "${redactUri(uri)}": ${why}`);
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw bad('not a URI (expected file:, ipp:, ipps:, socket: or command:)');
  }
  switch (u.protocol) {
    case 'file:': {
      if (u.host && u.host !== 'localhost') throw bad('file: URIs must be local (file:///path)');
      if (u.search || u.hash) throw bad('file: URIs take no query or fragment');
      return new DirectoryDriver(fileURLToPath(u));
    }
    case 'ipp:':
    case 'ipps:': {
      if (!u.hostname) throw bad('missing host');
      const insecure = u.searchParams.get('insecure-tls');
      u.searchParams.delete('insecure-tls');
      return new IppDriver(u.href, { rejectUnauthorized: !(insecure === '1' || insecure === 'true') });
    }
    case 'socket:': {
      if (!u.hostname) throw bad('missing host');
      if (u.username || u.password) throw bad('socket: URIs take no credentials');
      const port = u.port ? Number(u.port) : 9100;
      const host = u.hostname.replace(/^\[(.*)\]$/, '$1'); // IPv6 literal
      const waitEof = u.searchParams.get('waiteof') !== 'false';
      const lang = u.searchParams.get('lang');
      if (lang === 'zpl') return new ZplDriver(host, port, { waitEof });
      if (lang === 'brother-ql') {
        const snmpPort = u.searchParams.get('snmp-port');
        if (snmpPort !== null && !/^\d{1,5}$/.test(snmpPort)) throw bad('snmp-port must be a port number');
        if (snmpPort !== null && (Number(snmpPort) < 1 || Number(snmpPort) > 65535)) throw bad('snmp-port must be 1-65535');
        const community = u.searchParams.get('snmp-community') ?? undefined;
        try {
          return new BrotherQlDriver(host, port, u.searchParams.get('model') ?? undefined, { waitEof }, {
            ...(snmpPort !== null ? { port: Number(snmpPort) } : {}),
            ...(community !== undefined ? { community } : {}),
          });
        } catch (e) {
          throw bad((e as Error).message);
        }
      }
      throw bad(`add ?lang=zpl or ?lang=brother-ql (got ${lang === null ? 'none' : JSON.stringify(lang)})`);
    }
    case 'command:': {
      if (!opts.commandArgv?.length) throw bad('command: needs an argument vector (e.g. PRINTER_COMMAND=\'["lp","-d","Brother","{file}"]\')');
      return new CommandDriver(opts.commandArgv);
    }
    default:
      throw bad(`unsupported scheme ${u.protocol} (expected file:, ipp:, ipps:, socket: or command:)`);
  }
}

