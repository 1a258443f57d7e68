/**
 * Device URIs → printer drivers. What a URI may say and how it is checked is the
 * scheme table's (schemes.ts); here each kind of address gets its driver. The map
 * is typed over every `driver` a PrinterAddress can name: a new kind of address
 * without its driver here does not compile.
 */
import { BrotherQlDriver, checkQlModel, qlJob } from './drivers/brother-ql.js';
import { CommandDriver } from './drivers/command.js';
import { DeviceDriver } from './drivers/device.js';
import { DirectoryDriver } from './drivers/directory.js';
import { IppDriver } from './drivers/ipp.js';
import { ZplDriver, zplJob } from './drivers/zpl.js';
import type { PrinterDriver } from './drivers/types.js';
import { parsePrinterUri, printerUriError, type DriverKind, type PrinterAddress } from './schemes.js';

export { redactUri } from './schemes.js';

export interface DriverOptions {
  /** Argument vector for command: URIs, e.g. ["lp", "-d", "Brother", "{file}"]. */
  commandArgv?: string[];
}

type DriverFor<K extends DriverKind> = (address: Extract<PrinterAddress, { driver: K }>, opts: DriverOptions, bad: (why: string) => Error) => PrinterDriver;

const DRIVERS: { [K in DriverKind]: DriverFor<K> } = {
  directory: ({ path }) => new DirectoryDriver(path),
  ipp: ({ url, rejectUnauthorized }) => new IppDriver(url, { rejectUnauthorized }),
  zpl: ({ host, port, waitEof }) => new ZplDriver(host, port, { waitEof }),
  'brother-ql': ({ host, port, model, waitEof, snmp }, _opts, bad) => {
    try {
      return new BrotherQlDriver(host, port, model, { waitEof }, snmp);
    } catch (e) {
      throw bad((e as Error).message); // an unknown model
    }
  },
  // A printer on a local device: the same encoders as over raw TCP, written to the device.
  device: (address, _opts, bad) => {
    if (address.lang === 'zpl') return new DeviceDriver(address.path, 'ZPL printer', zplJob);
    const { model } = address;
    try {
      checkQlModel(model);
    } catch (e) {
      throw bad((e as Error).message);
    }
    return new DeviceDriver(address.path, `Brother ${model ?? 'QL'}`, (doc) => qlJob(doc, model));
  },
  command: (_address, { commandArgv }, bad) => {
    if (!commandArgv?.length) throw bad('command: needs an argument vector (e.g. PRINTER_COMMAND=\'["lp","-d","Brother","{file}"]\')');
    return new CommandDriver(commandArgv);
  },
};

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
  const address = parsePrinterUri(uri);
  const make = DRIVERS[address.driver] as DriverFor<DriverKind>;
  return make(address, opts, (why) => printerUriError(uri.trim(), why));
}
