/**
 * One driver per printer, kept while its device URI stays the same: the print
 * dispatcher and the status poller share it, because a driver remembers what it
 * learnt about its printer (a Zebra that answered ~HS before and falls silent is out
 * of labels, not unknown: status/zpl.ts). A printer whose URI changes gets a new
 * driver; jobs name printers, not URIs, so none is orphaned by the change.
 */
import { driverFromUri, type DriverOptions } from './device-uri.js';
import type { PrinterDriver } from './drivers/types.js';

export interface PrinterDrivers {
  /** The printer's driver (made on first use, or again after its URI changed). Throws when the URI names no driver. */
  driverFor(printer: { name: string; deviceUri: string }): PrinterDriver;
  /** Forgets printers that no longer exist. */
  keepOnly(names: ReadonlySet<string>): void;
}

export function printerDrivers(opts: DriverOptions = {}): PrinterDrivers {
  const byName = new Map<string, { uri: string; driver: PrinterDriver }>();
  return {
    driverFor({ name, deviceUri }) {
      const kept = byName.get(name);
      if (kept?.uri === deviceUri) return kept.driver;
      const driver = driverFromUri(deviceUri, opts);
      byName.set(name, { uri: deviceUri, driver });
      return driver;
    },
    keepOnly(names) {
      for (const name of byName.keys()) if (!names.has(name)) byName.delete(name);
    },
  };
}
