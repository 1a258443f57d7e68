/**
 * The printer fleet's rules (issue 31), shared by the API (putPrinter, deletePrinter) and
 * the configuration file (fleet-config.ts): what a printer's settings must hold beyond
 * their schema, and the domain errors a client hears about. The schema itself (spec's
 * PrinterInput) is checked by the spec router before any of this runs.
 */
import { ProblemError } from '../errors.js';
import { STOCKS, findStock } from '../labels/index.js';
import type { PrinterSettings, RecordStore } from '../records/types.js';
import { deviceUriProblem } from './device-uri.js';

/** A printer's name: a slug, what jobs name it by (spec: PrinterName). */
export const PRINTER_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** PRINTER_URI's printer. */
export const DEFAULT_PRINTER = 'default';

/** Settings that cannot be used (a device URI no driver takes, an unknown location, a stock alias): nothing was saved. */
export class InvalidPrinterError extends ProblemError {
  override name = 'InvalidPrinterError';
  constructor(readonly problems: readonly PrinterProblem[]) {
    super('invalid-printer', problems.map((p) => `${p.field}: ${p.message}`).join('; '));
  }
}

/** A change through the API of a printer the server's configuration defines: nothing was changed. */
export class PrinterFromConfigError extends ProblemError {
  override name = 'PrinterFromConfigError';
  constructor(name: string) {
    super('printer-from-config', `The printer ${name} comes from the server's configuration (PRINTERS_FILE or PRINTER_URI): change it there.`);
  }
}

/** A delete of a printer that jobs still wait for: nothing was changed. */
export class PrinterHasJobsError extends ProblemError {
  override name = 'PrinterHasJobsError';
  constructor(name: string, jobs: number) {
    super('printer-has-jobs', `${jobs} print job${jobs === 1 ? '' : 's'} still wait${jobs === 1 ? 's' : ''} for ${name}: let ${jobs === 1 ? 'it' : 'them'} print or cancel ${jobs === 1 ? 'it' : 'them'} first.`);
  }
}

/** One field a printer's settings get wrong: its JSON pointer in the settings, and why. */
export interface PrinterProblem {
  field: string;
  message: string;
}

export interface PrinterChecks {
  /** Where locationId is looked up. */
  records: Pick<RecordStore, 'getLocation'>;
  /** PRINTER_COMMAND: what a command: printer runs (without it, command: URIs are refused). */
  commandArgv?: string[];
}

/** Why a name in `stocks` is not a canonical stock name, or undefined when it is one. */
export function stockProblem(name: string): string | undefined {
  const stock = findStock(name);
  if (stock?.name === name) return undefined;
  if (stock) return `${name} is not a canonical stock name (it is an alias of ${stock.name}); use ${stock.name}.`;
  return `no label stock is named ${name}; the stocks are ${STOCKS.map((s) => s.name).join(', ')}.`;
}

/**
 * What a printer's settings get wrong beyond their schema that needs no database, each
 * naming its field: the device URI (the drivers' own parser; nothing is contacted) and
 * each stock (a canonical name). The mock answers with these too.
 */
export function settingsProblems(p: Pick<PrinterSettings, 'deviceUri' | 'stocks'>, commandArgv?: string[]): PrinterProblem[] {
  const problems: PrinterProblem[] = [];
  const uri = deviceUriProblem(p.deviceUri, { commandArgv });
  if (uri) problems.push({ field: '/deviceUri', message: uri });
  p.stocks.forEach((name, i) => {
    const why = stockProblem(name);
    if (why) problems.push({ field: `/stocks/${i}`, message: why });
  });
  return problems;
}

/** settingsProblems, and the location: a location record must have its id. Empty when the settings can be used. */
export async function printerProblems(p: Pick<PrinterSettings, 'deviceUri' | 'locationId' | 'stocks'>, checks: PrinterChecks): Promise<PrinterProblem[]> {
  const problems = settingsProblems(p, checks.commandArgv);
  if (p.locationId !== null && !(await checks.records.getLocation(p.locationId))) {
    problems.splice(problems[0]?.field === '/deviceUri' ? 1 : 0, 0, { field: '/locationId', message: `no location has the id ${p.locationId}.` });
  }
  return problems;
}
