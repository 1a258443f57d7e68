/**
 * All configuration comes from environment variables (or the same names in a config file,
 * settingsEnv), read once here and validated, so a typo fails at start-up with a clear
 * message instead of at the first request. The configuration table in docs/operations.md
 * mirrors this file.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { INSTALL_ROOT } from './version.js';
import { BUILT_IN_TEMPLATE_NAMES } from './labels/index.js';
import { printerName } from './printing/printer-name.js';
import { FieldError, parseCatalogue, type FieldCatalogue } from './records/fields.js';
import { parse as parseYaml } from 'yaml';

export interface Config {
  /** Where the default SQLite database and the demo's printer folder live (DATA_DIR; default: data/ in the installation, not the working directory). */
  dataDir: string;
  host: string;
  port: number;
  /** `sqlite:<path>` (default) or `postgres://...`. */
  databaseUrl: string;
  /** Base of the URLs QR codes point at: the inventory front-end, not this service. */
  publicBaseUrl: string;
  publicBaseUrlIsDefault: boolean;
  /** Template used when a request names none (a built-in template: a stock name or alias). */
  defaultTemplateName: string;
  /** Fixed line on every label, e.g. "If found, call ..."; empty for none. */
  labelFooter: string;
  /** The IANA time zone a label's `{today}` is the day in (LABEL_TIME_ZONE; default UTC). */
  labelTimeZone: string;
  rateLimitPerMinute: number;
  /** Redis for the shared rate-limit budgets (`redis://` or `rediss://`); undefined: the database (PostgreSQL) or memory. */
  redisUrl: string | undefined;
  /** Origins allowed to call the API from a browser: `*`, a list, or none (empty). */
  corsAllowOrigins: CorsOrigins;
  requestTimeoutMs: number;
  /** Open client connections the API listener accepts at once; further ones are closed as they arrive. */
  maxConnections: number;
  /** Labels one token (or integration key) may send to the printer per minute, on every print path; apart from rateLimitPerMinute. */
  printQuotaPerMinute: number;
  /** Express `trust proxy` setting, for the client address behind a reverse proxy. */
  trustProxy: boolean | number | string;
  /** Seed demo records and a demo token when the database is empty. */
  demo: boolean;
  /** The print queue's settings; printing works as soon as the fleet has a printer (PRINTER_URI, PRINTERS_FILE or putPrinter). */
  printing: PrintingConfig;
  /** The printer fleet's configuration file (PRINTERS_FILE, YAML or JSON), read at start; undefined: none. */
  printersFile: string | undefined;
  /** The field catalogue (FIELDS_FILE, YAML or JSON, read at start): the custom fields records may carry and templates may show. */
  fields: FieldCatalogue;
  /** Argument vector for command: printers (PRINTER_COMMAND), whichever printer has that URI. */
  printerCommand: string[] | undefined;
  /** How often each printer's status is read (PRINTER_STATUS_INTERVAL_S), in ms; 0: not polled (read only when asked, refreshPrinterStatus). */
  printerStatusIntervalMs: number;
  logLevel: string;
  /** Which answered requests get an access-log line: only errors (status 400 and up; the default), or all. */
  accessLog: AccessLog;
  /** Where GET /metrics listens (its own address and port, never the API's); undefined: off. */
  metricsListen: { host: string; port: number } | undefined;
  /** Worker threads that draw labels (0: on the event loop). */
  renderThreads: number;
  /** Memory bound of the rendered-label cache, in bytes (0: no cache). */
  labelCacheBytes: number;
  /** Heavy requests (sheets, print batches, previews, image prints) one token may have in flight (api/heavy-work.ts). */
  heavyRequestsPerToken: number;
  /** How long a verified token is trusted without asking the store (0: every request asks). */
  tokenCacheMs: number;
  /** Days events and finished webhook deliveries are kept (EVENTS_RETENTION_DAYS; src/events/retention.ts). */
  eventsRetentionDays: number;
  /** Outgoing webhooks (src/events/webhooks.ts, docs/webhooks.md). */
  webhooks: { concurrency: number; connectTimeoutMs: number; totalTimeoutMs: number; baseBackoffMs: number; maxBackoffMs: number; maxAttempts: number };
}

export interface PrintingConfig {
  /** PRINTER_URI, the printer `default` (undefined: none; the fleet may still have printers). CUPS-style: file:///dir, ipp://host/printers/q, socket://host:9100?lang=zpl, file:///dev/usb/lp0?lang=zpl, command: */
  printerUri: string | undefined;
  /** PRINTER_URI's printer's title (PRINTER_NAME; default from the URI: a CUPS queue's name, else its kind). */
  printerName: string | undefined;
  /** Argument vector for command: printers, e.g. ["lp", "-d", "Brother", "{file}"]. */
  commandArgv: string[] | undefined;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Days a printed or failed job stays readable before it is deleted (at least the 24-hour idempotency window). */
  retentionDays: number;
}

export class ConfigError extends Error {}

/**
 * FIELDS_FILE: `fields:` a list of {name, title, type, min?, max?, maxLength?} (YAML or JSON),
 * checked by parseCatalogue; none: no custom fields. A file that cannot be used stops the start.
 */
function fieldCatalogue(file: string | undefined): FieldCatalogue {
  if (!file?.trim()) return { fields: [], file: undefined };
  const path = resolve(file.trim());
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`FIELDS_FILE ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text); // YAML is a superset of JSON
  } catch (err) {
    throw new ConfigError(`FIELDS_FILE ${path} is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as { fields?: unknown }).fields : undefined;
  if (list === undefined) throw new ConfigError(`FIELDS_FILE ${path}: expected a document with a fields: list`);
  try {
    return { fields: parseCatalogue(list), file: path };
  } catch (err) {
    if (err instanceof FieldError) throw new ConfigError(`FIELDS_FILE ${path}: ${err.message}`);
    throw err;
  }
}

export type AccessLog = 'all' | 'errors';

/** What loadConfig may read: only names in SETTINGS (the compiler refuses a read of any other). */
type SettingsRead = Partial<Record<SettingName, string>>;
type Env = Record<string, string | undefined>;

/** LABEL_TIME_ZONE: an IANA name the platform knows (Europe/Berlin), default UTC; a ConfigError for any other. */
function timeZone(raw: string | undefined): string {
  const name = raw?.trim() || 'UTC';
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(`LABEL_TIME_ZONE must be an IANA time zone such as Europe/Berlin or America/New_York, got '${raw}'`);
  }
}

export function loadConfig(env: SettingsRead = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const rawBase = env.PUBLIC_BASE_URL?.trim();
  const publicBaseUrl = (rawBase || 'http://localhost:7745').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(publicBaseUrl)) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got '${rawBase}'`);
  }
  const templateName = env.LABEL_TEMPLATE?.trim() || 'brother-ql-62x29';
  if (!BUILT_IN_TEMPLATE_NAMES.includes(templateName)) {
    throw new ConfigError(`LABEL_TEMPLATE must be one of ${BUILT_IN_TEMPLATE_NAMES.join(', ')}; got '${templateName}'`);
  }
  const demo = bool(env, 'DEMO', false);
  const dataDir = resolve(env.DATA_DIR?.trim() || join(INSTALL_ROOT, 'data'));
  return {
    dataDir,
    host: env.HOST?.trim() || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL?.trim() || `sqlite:${join(dataDir, 'labelmaker.db')}`,
    publicBaseUrl,
    publicBaseUrlIsDefault: !rawBase,
    defaultTemplateName: templateName,
    labelFooter: (env.LABEL_FOOTER ?? '').trim().slice(0, 200),
    labelTimeZone: timeZone(env.LABEL_TIME_ZONE),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000_000),
    redisUrl: redisUrl(env.REDIS_URL),
    corsAllowOrigins: corsOrigins(env.CORS_ALLOW_ORIGINS),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
    // Each connection holds a file descriptor and buffers: a bound, so a flood of idle
    // connections cannot exhaust the process's descriptors (the store needs some too).
    maxConnections: int(env, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    // Counted per label, not per request: a batch request prints up to 1000, which the default lets through in one minute.
    printQuotaPerMinute: int(env, 'PRINT_QUOTA_PER_MINUTE', 1000, 1, 1_000_000_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    demo,
    printing: printing(env, demo, dataDir),
    printersFile: env.PRINTERS_FILE?.trim() ? resolve(env.PRINTERS_FILE.trim()) : undefined,
    fields: fieldCatalogue(env.FIELDS_FILE),
    printerCommand: printerCommand(env),
    // 30 s: a roll change or an empty printer shows within half a minute; 100 printers cost ~0.1 % of a core (docs/performance.md).
    printerStatusIntervalMs: int(env, 'PRINTER_STATUS_INTERVAL_S', 30, 0, 3600) * 1000,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    accessLog: accessLog(env.ACCESS_LOG),
    metricsListen: metricsListen(env.METRICS_LISTEN),
    // One per core: the main thread only routes, reads the store and writes bytes.
    renderThreads: int(env, 'RENDER_THREADS', availableParallelism(), 0, 64),
    // 8 MB holds 1,500-3,500 labels (62x100 mm to 62x29 mm), plenty for the repeats it is for
    // (preview then print, one shelf's labels fetched by many clients); a 304 needs no
    // cached bytes at all. 32 MB cost about 35 MB more RSS under distinct labels (bench:http).
    labelCacheBytes: int(env, 'LABEL_CACHE_MB', 8, 0, 4096) * 1024 * 1024,
    // Two: a client may make one sheet while it previews, but not fill every render thread of a small machine.
    heavyRequestsPerToken: int(env, 'HEAVY_REQUESTS_PER_TOKEN', 2, 1, 1000),
    // A token revoked elsewhere (the CLI, another instance) stops working within this time.
    tokenCacheMs: int(env, 'TOKEN_CACHE_MS', 1_000, 0, 60_000),
    eventsRetentionDays: int(env, 'EVENTS_RETENTION_DAYS', 30, 1, 3650),
    webhooks: {
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 64),
      connectTimeoutMs: int(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
      totalTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      baseBackoffMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 10, 3_600_000),
      maxBackoffMs: int(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000, 10, 86_400_000),
      maxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 12, 1, 100),
    },
  };
}

function printing(env: SettingsRead, demo: boolean, dataDir: string): PrintingConfig {
  // Demos print into a folder, so print=true works out of the box.
  const uri = env.PRINTER_URI?.trim() || (demo ? pathToFileURL(join(dataDir, 'printed-labels')).href : undefined);
  const commandArgv = printerCommand(env);
  const name = uri === undefined ? undefined : env.PRINTER_NAME?.trim() || printerName(uri);
  if (name !== undefined && (name.length > 64 || /[\u0000-\u001f\u007f]/.test(name))) throw new ConfigError('PRINTER_NAME must be at most 64 characters, without control characters');
  return {
    printerUri: uri,
    printerName: name,
    commandArgv,
    timeoutMs: int(env, 'PRINT_TIMEOUT_MS', 30_000, 100, 600_000),
    maxAttempts: int(env, 'PRINT_MAX_ATTEMPTS', 5, 1, 100),
    retryBaseMs: int(env, 'PRINT_RETRY_BASE_MS', 2_000, 1, 3_600_000),
    retryMaxMs: int(env, 'PRINT_RETRY_MAX_MS', 300_000, 1, 86_400_000),
    // At least 1 day: a job must outlive its Idempotency-Key (24 hours), or a replayed key would print again.
    retentionDays: int(env, 'PRINT_JOB_RETENTION_DAYS', 7, 1, 3650),
  };
}

/** PRINTER_COMMAND: the argument vector of command: printers (PRINTER_URI's, or a fleet printer's). */
function printerCommand(env: SettingsRead): string[] | undefined {
  if (!env.PRINTER_COMMAND?.trim()) return undefined;
  let argv: unknown;
  try {
    argv = JSON.parse(env.PRINTER_COMMAND);
  } catch {
    argv = undefined;
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) {
    throw new ConfigError('PRINTER_COMMAND must be a JSON array of strings, e.g. ["lp", "-d", "Brother", "{file}"]');
  }
  return argv;
}

/** Origins allowed to call the API from a browser. */
export type CorsOrigins = '*' | readonly string[];

/**
 * Parses CORS_ALLOW_ORIGINS: `*`, or comma-separated origins (`scheme://host[:port]`,
 * nothing else). Throws with a message naming the bad entry: a typo must fail the
 * start, not silently leave pages without the header.
 */
export function parseCorsOrigins(raw: string | undefined): CorsOrigins {
  const entries = (raw ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error(`use '*' alone or a list of origins, not both; got '${raw}'`);
    return '*';
  }
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`'${entry}' is not an origin; write it as scheme://host[:port], e.g. http://localhost:5173`);
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== entry.replace(/\/$/, '').toLowerCase() || entry.endsWith('/')) {
      throw new Error(`'${entry}' is not an origin; write it as scheme://host[:port] with no path or trailing slash, e.g. ${url.origin}`);
    }
    return url.origin;
  });
}

function corsOrigins(raw: string | undefined): CorsOrigins {
  try {
    return parseCorsOrigins(raw);
  } catch (err) {
    throw new ConfigError(`CORS_ALLOW_ORIGINS: ${(err as Error).message}`);
  }
}

function int(env: SettingsRead, name: SettingName, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got '${raw}'`);
  }
  return n;
}

function bool(env: SettingsRead, name: SettingName, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false; got '${env[name]}'`);
}

/**
 * ACCESS_LOG: `errors` (default) or `all`. A line for every answered request costs a
 * cached label about 30% of its CPU (bench:http, 38 against 54 µs), and /metrics already
 * counts requests by operation and status; problems (400 and up) are the lines a user's
 * error report is looked up by. Caddy and Traefik keep access logs off by default too.
 */
function accessLog(raw: string | undefined): AccessLog {
  const v = raw?.trim().toLowerCase() || 'errors';
  if (v !== 'all' && v !== 'errors') throw new ConfigError(`ACCESS_LOG must be all or errors; got '${raw}'`);
  return v;
}

function redisUrl(raw: string | undefined): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(v)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  return v;
}

/** METRICS_LISTEN: `host:port` (`127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464`); empty: no metrics listener. */
function metricsListen(raw: string | undefined): Config['metricsListen'] {
  const v = raw?.trim();
  if (!v) return undefined;
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v);
  const port = Number(m?.[2]);
  if (!m || port > 65535) throw new ConfigError(`METRICS_LISTEN must be host:port, e.g. 127.0.0.1:9464; got '${raw}'`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function trustProxy(raw: string | undefined): boolean | number | string {
  const v = raw?.trim();
  if (!v || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v; // express also takes addresses and subnets, e.g. "loopback, 10.0.0.0/8"
}

/**
 * Settings that are secrets: each may instead be read from a file named by `<NAME>_FILE`
 * (Docker and Podman secrets, systemd credentials), so it need not sit in the environment
 * or a config file. Their values are never logged.
 */
export const SECRET_SETTINGS = ['DATABASE_URL', 'REDIS_URL', 'LABELMAKER_AGENT_TOKEN', 'PRINTER_URI'] as const;

/**
 * Every setting's name, the one list: loadConfig reads only these (its env is typed by them,
 * so a new read needs its name here first); a config file's line with any other name is a
 * start-up error, as a mistyped name would otherwise be ignored without a word (the
 * environment is not checked: it holds much else); the configuration table of
 * docs/operations.md documents each (test/docs/settings.test.ts).
 */
export const SETTINGS = [
  'PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_BASE_URL', 'LABEL_TEMPLATE', 'LABEL_FOOTER', 'LABEL_TIME_ZONE',
  'RATE_LIMIT_PER_MINUTE', 'REDIS_URL', 'CORS_ALLOW_ORIGINS', 'REQUEST_TIMEOUT_MS', 'MAX_CONNECTIONS',
  'HEAVY_REQUESTS_PER_TOKEN', 'PRINT_QUOTA_PER_MINUTE', 'TRUST_PROXY', 'DEMO', 'PRINTER_URI', 'PRINTER_COMMAND',
  'PRINTER_NAME', 'PRINTER_STATUS_INTERVAL_S', 'PRINTERS_FILE', 'FIELDS_FILE', 'PRINT_TIMEOUT_MS',
  'PRINT_MAX_ATTEMPTS', 'PRINT_RETRY_BASE_MS', 'PRINT_RETRY_MAX_MS', 'PRINT_JOB_RETENTION_DAYS', 'EVENTS_RETENTION_DAYS', 'LOG_LEVEL',
  'ACCESS_LOG', 'METRICS_LISTEN', 'RENDER_THREADS', 'LABEL_CACHE_MB', 'TOKEN_CACHE_MS', 'WEBHOOK_CONCURRENCY',
  'WEBHOOK_CONNECT_TIMEOUT_MS', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_RETRY_BASE_MS', 'WEBHOOK_RETRY_MAX_MS',
  'WEBHOOK_MAX_ATTEMPTS', 'LABELMAKER_AGENT_TOKEN', ...SECRET_SETTINGS.map((n) => `${n}_FILE` as const),
] as const;
export type SettingName = (typeof SETTINGS)[number];

/** Whether a name is a setting (a config file's lines are checked with it). */
export function isSetting(name: string): name is SettingName {
  return (SETTINGS as readonly string[]).includes(name);
}

/** Settings that name a path: in a config file, a relative one is relative to the file's folder. */
const PATH_SETTINGS: readonly string[] = ['DATA_DIR', 'PRINTERS_FILE', 'FIELDS_FILE', ...SECRET_SETTINGS.map((n) => `${n}_FILE`)];

/** A config or secret file is small: a bound, so a wrong path (a device, a database) fails clearly. */
const MAX_SETTINGS_FILE_BYTES = 64 * 1024;

/**
 * The settings the service reads: the config file's (`--config FILE` or LABELMAKER_CONFIG;
 * optional), overridden by the process's environment variables, then each secret's
 * `<NAME>_FILE` read in. The file holds the environment variables' names, one `NAME=value`
 * a line (`#` comments, optional quotes, an optional `export `): the format of Docker's and
 * systemd's environment files, so one file serves all three.
 */
export function settingsEnv(env: Env = process.env, configFile: string | undefined = env.LABELMAKER_CONFIG?.trim() || undefined): Env {
  const merged: Env = { ...(configFile ? readConfigFile(configFile) : {}), ...definedOnly(env) };
  for (const name of SECRET_SETTINGS) {
    const file = merged[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (merged[name]?.trim()) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
    const value = readSmallFile(file, `${name}_FILE`).replace(/\r?\n$/, '').trim();
    if (!value) throw new ConfigError(`${name}_FILE: ${file} is empty`);
    merged[name] = value;
  }
  return merged;
}

function definedOnly(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

/** Parses a config file; errors name the file and line, never a value (it may be a secret). */
export function readConfigFile(path: string): Env {
  const text = readSmallFile(path, 'config file');
  const dir = dirname(resolve(path));
  const out: Env = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new ConfigError(`config file ${path}, line ${i + 1}: expected NAME=value`);
    const name = m[1]!;
    if (!isSetting(name)) throw new ConfigError(`config file ${path}, line ${i + 1}: ${name} is not a setting (see docs/operations.md#configuration)`);
    let value = m[2]!;
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2]!;
    else if (/^["']/.test(value)) throw new ConfigError(`config file ${path}, line ${i + 1}: ${name}'s value has an opening quote without its closing one`);
    else value = value.replace(/\s+#.*$/, '');
    if (PATH_SETTINGS.includes(name) && value && !isAbsolute(value)) value = resolve(dir, value);
    if (name === 'DATABASE_URL' && /^sqlite:(?!:memory:)[^/]/.test(value)) value = `sqlite:${resolve(dir, value.slice('sqlite:'.length))}`;
    out[name] = value;
  });
  return out;
}

function readSmallFile(path: string, what: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new ConfigError(`${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(`${what}: ${path} is not a file`);
    if (st.size > MAX_SETTINGS_FILE_BYTES) throw new ConfigError(`${what}: ${path} is larger than ${MAX_SETTINGS_FILE_BYTES / 1024} KB`);
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
