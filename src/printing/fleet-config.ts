/**
 * Printers from the server's configuration, applied to the fleet at start: the printers
 * of PRINTERS_FILE (YAML or JSON), and PRINTER_URI as the printer `default`. Each is
 * created or updated with source 'config' (read-only through the API); a 'config'
 * printer no longer configured is removed, unless jobs still wait for it (then it stays,
 * and the log says so). A file that cannot be read or holds an invalid printer stops the
 * start with a ConfigError naming the entry and the field; device URIs are never logged
 * with their credentials.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../config.js';
import type { PrinterSettings, PrinterStore, SavedPrinter } from '../records/types.js';
import { redactUri } from './device-uri.js';
import { DEFAULT_PRINTER, PRINTER_NAME, printerProblems, type PrinterChecks } from './fleet.js';

/** Checks an entry's settings against the spec's PrinterInput (and its name against PrinterName); the problems, described, or undefined. */
export type PrinterSchemaCheck = (name: string, settings: unknown) => string | undefined;

export interface FleetLogger {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

export interface FleetConfig {
  /** PRINTERS_FILE, absolute; undefined: none. */
  file: string | undefined;
  /** PRINTER_URI's printer: its URI and what jobs call it (PRINTER_NAME, or the URI's kind), its title here. */
  printerUri: { uri: string; title: string } | undefined;
}

/** The printers the configuration defines, checked; throws a ConfigError naming what is wrong. */
export async function configuredPrinters(
  config: FleetConfig,
  checkSchema: PrinterSchemaCheck,
  checks: PrinterChecks,
  logger: FleetLogger,
): Promise<PrinterSettings[]> {
  const printers: PrinterSettings[] = [];
  if (config.printerUri) {
    // Its URI was checked when printing started (the worker's driver, the same parser).
    printers.push({
      name: DEFAULT_PRINTER,
      title: config.printerUri.title,
      deviceUri: config.printerUri.uri,
      model: null,
      locationId: null,
      stocks: [],
      red: false,
      isDefault: true,
      source: 'config',
    });
  }
  if (config.file) printers.push(...(await readPrintersFile(config.file, checkSchema, checks, logger)));
  const names = new Set<string>();
  for (const p of printers) {
    if (names.has(p.name)) {
      throw new ConfigError(
        p.name === DEFAULT_PRINTER && config.printerUri
          ? `PRINTERS_FILE ${config.file}: the printer default is PRINTER_URI's; name this one otherwise, or leave PRINTER_URI unset`
          : `PRINTERS_FILE ${config.file}: two printers are named ${p.name}`,
      );
    }
    names.add(p.name);
  }
  const fromFile = printers.filter((p) => !(p.name === DEFAULT_PRINTER && config.printerUri));
  const defaults = fromFile.filter((p) => p.isDefault);
  if (defaults.length > 1) throw new ConfigError(`PRINTERS_FILE ${config.file}: only one printer can be the default (${defaults.map((p) => p.name).join(', ')} say default: true)`);
  // A default in the file wins over PRINTER_URI's printer, which is the default otherwise.
  // The default comes last: putting it moves the flag (PrinterStore.put).
  const settled = printers.map((p) => (p.name === DEFAULT_PRINTER && config.printerUri && defaults.length > 0 ? { ...p, isDefault: false } : p));
  return [...settled.filter((p) => !p.isDefault), ...settled.filter((p) => p.isDefault)];
}

async function readPrintersFile(file: string, checkSchema: PrinterSchemaCheck, checks: PrinterChecks, logger: FleetLogger): Promise<PrinterSettings[]> {
  const where = `PRINTERS_FILE ${file}`;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${where}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    // YAML 1.2 is a superset of JSON: one parser reads both.
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${where}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { printers?: unknown }).printers : undefined;
  const keys = doc && typeof doc === 'object' && !Array.isArray(doc) ? Object.keys(doc).filter((k) => k !== 'printers') : [];
  if (!Array.isArray(list) || keys.length > 0) {
    throw new ConfigError(`${where}: expected an object with one member, printers: a list of printers (each a name and the fields of putPrinter's body)${keys.length ? `; unknown member ${keys.join(', ')}` : ''}`);
  }
  const printers: PrinterSettings[] = [];
  for (const [i, entry] of list.entries()) {
    const at = `${where}: printers[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigError(`${at}: expected an object (name, title, deviceUri, ...)`);
    const { name, ...settings } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || !PRINTER_NAME.test(name)) {
      throw new ConfigError(`${at}: name must be lower-case letters, digits and -, starting with a letter or digit, at most 40 characters; got ${JSON.stringify(name ?? null)}`);
    }
    const schema = checkSchema(name, settings);
    if (schema) throw new ConfigError(`${at} (${name}): ${schema}`);
    const s = settings as { title: string; deviceUri: string; model?: string | null; locationId?: string | null; stocks?: string[]; red?: boolean; default?: boolean; agent?: string | null };
    const printer: PrinterSettings = {
      name,
      title: s.title,
      deviceUri: s.deviceUri,
      model: s.model ?? null,
      locationId: s.locationId ?? null,
      stocks: s.stocks ?? [],
      red: s.red ?? false,
      isDefault: s.default ?? false,
      source: 'config',
      agent: s.agent ?? null,
    };
    const problems = await printerProblems(printer, checks);
    // Locations are records, which may be imported after the fleet is configured: a missing one is
    // reported, not fatal. Everything else is the file's own mistake.
    const fatal = problems.filter((p) => p.field !== '/locationId');
    if (fatal.length > 0) throw new ConfigError(`${at} (${name}): ${fatal.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
    for (const p of problems.filter((p) => p.field === '/locationId')) logger.warn({ printer: name, locationId: printer.locationId }, `${at} (${name}): ${p.message.replace(/\.$/, '')} (yet): import it, or correct locationId`);
    printers.push(printer);
  }
  return printers;
}

/** Whether the stored printer already has these settings (nothing to write, its ETag unchanged). */
function unchanged(saved: SavedPrinter, p: PrinterSettings): boolean {
  return (
    saved.source === p.source &&
    saved.title === p.title &&
    saved.deviceUri === p.deviceUri &&
    saved.model === p.model &&
    saved.locationId === p.locationId &&
    saved.red === p.red &&
    // false never takes the default away: only a true that is not yet so is a change.
    (saved.isDefault || !p.isDefault) &&
    JSON.stringify(saved.stocks) === JSON.stringify(p.stocks)
  );
}

/**
 * Applies the configuration's printers to the fleet: creates or updates each (unchanged
 * ones are not written, so their ETags stay), and removes the 'config' printers it no
 * longer names unless jobs wait for them. Returns what it did, by printer name.
 */
export async function applyConfiguredPrinters(
  printers: PrinterStore,
  configured: readonly PrinterSettings[],
  logger: FleetLogger,
): Promise<{ created: string[]; updated: string[]; removed: string[]; kept: string[] }> {
  const done = { created: [] as string[], updated: [] as string[], removed: [] as string[], kept: [] as string[] };
  const before = new Map((await printers.list()).map((p) => [p.name, p]));
  for (const p of configured) {
    const saved = before.get(p.name);
    if (saved && unchanged(saved, p)) continue;
    if (saved?.source === 'api') logger.warn({ printer: p.name }, `the configuration now defines the printer ${p.name}, which was defined through the API: the configuration's settings replace it`);
    await printers.put(p);
    (saved ? done.updated : done.created).push(p.name);
    logger.info({ printer: p.name, deviceUri: redactUri(p.deviceUri), default: p.isDefault }, `printer ${p.name} ${saved ? 'updated' : 'created'} from the configuration`);
  }
  const names = new Set(configured.map((p) => p.name));
  for (const saved of before.values()) {
    if (saved.source !== 'config' || names.has(saved.name)) continue;
    const outcome = await printers.delete(saved.name);
    if (outcome === 'has-jobs') {
      done.kept.push(saved.name);
      logger.warn(
        { printer: saved.name, jobs: await printers.pendingJobs(saved.name) },
        `printer ${saved.name} is no longer configured but jobs still wait for it: kept until they are done (the next start removes it)`,
      );
    } else if (outcome === 'deleted') {
      done.removed.push(saved.name);
      logger.info({ printer: saved.name }, `printer ${saved.name} removed: no longer configured`);
    }
  }
  return done;
}
