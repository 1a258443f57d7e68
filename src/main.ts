/**
 * The one entry point: `labelmaker` (or `labelmaker serve`) runs the service;
 * other arguments are store commands (import, tokens, backup, ...), see commands.ts.
 * bin/labelmaker runs it on the project's pinned Node.
 */
import { hostname } from 'node:os';
import { destination, pino, type Logger } from 'pino';
import { CommandFailed, USAGE, UsageError, backupCommand, checkImportSource, restoreCommand, runCommand, seedDemo } from './commands.js';
import { PortInUseError } from './api/listen.js';
import { ConfigError, loadConfig, settingsEnv, type Config } from './config.js';
import { SERVICE_NAME, VERSION } from './version.js';
import { DEMO_ITEMS, DEMO_LOCATIONS } from './records/demo.js';
import { DatabaseMissingError, openStore, printableLines, type StoreLogger } from './records/index.js';
import type { Store } from './records/types.js';

/** `--config FILE` (or `--config=FILE`), wherever it stands: the config file, and the arguments without it. */
function configOption(argv: string[]): { args: string[]; configFile: string | undefined } {
  const args: string[] = [];
  let configFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config') {
      configFile = argv[++i];
      if (!configFile) throw new UsageError('--config needs a file');
    } else if (a.startsWith('--config=')) configFile = a.slice('--config='.length);
    else args.push(a);
  }
  return { args, configFile };
}

async function main(argv: string[]): Promise<number> {
  const { args, configFile } = configOption(argv);
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (args[0] === '--version' || args[0] === '-V' || args[0] === 'version') {
    console.log(`${SERVICE_NAME} ${VERSION}`);
    return 0;
  }
  const env = settingsEnv(process.env, configFile ?? (process.env.LABELMAKER_CONFIG?.trim() || undefined));
  if (args[0] === 'agent') {
    // Beside the printers, not the database: no configuration of the service is read.
    const { runAgentCommand, AgentUsageError } = await import('./printing/agent/command.js');
    try {
      return await runAgentCommand(args.slice(1), env);
    } catch (err) {
      throw err instanceof AgentUsageError ? new UsageError(err.message) : err;
    }
  }
  const config = loadConfig(env);
  if (args[0] === 'restore') {
    console.log(await restoreCommand(config.databaseUrl, args.slice(1)));
    return 0;
  }
  if (args[0] === 'backup') {
    console.log(await backupCommand(config.databaseUrl, args.slice(1)));
    return 0;
  }
  if (args.length > 0 && args[0] !== 'serve') {
    // Before the store opens: a mistyped command creates no database.
    if (!['init', 'import', 'tokens'].includes(args[0]!)) throw new UsageError(`unknown command '${printableLines(args[0]!)}'`);
    if (args[0] === 'import') await checkImportSource(args); // before the store opens: a typo creates no database
    // Commands write on this thread: there are no requests to keep waiting.
    const store = await openStore(config.databaseUrl, { writes: 'inline', logger: CLI_LOGGER, create: args[0] === 'init' ? 'init' : 'first-start' });
    try {
      console.log(await runCommand(store, args, config.fields.fields));
      return 0;
    } finally {
      await store.close();
    }
  }
  await serve(config);
  return 0;
}

async function serve(config: Config): Promise<void> {
  // Asynchronous stdout: lines written while a write is under way go out together in the
  // next one. Synchronous, each request's line was a write of its own: a third of a cached
  // label's CPU (bench:http). pino flushes what is pending when the process exits.
  // Every line names the service and its release, for logs collected from many services.
  const logger = pino(
    { level: config.logLevel, redact: ['req.headers.authorization'], base: { pid: process.pid, hostname: hostname(), service: SERVICE_NAME, version: VERSION } },
    destination({ dest: 1, sync: false }),
  );
  // Loaded here, not at the top: store commands (an import) never load the HTTP stack and the renderer.
  const { startServer } = await import('./api/server.js');
  const store = await openStore(config.databaseUrl, { logger: logger.child({ component: 'store' }) });
  const demo = config.demo ? await seedDemo(store) : undefined;
  const running = await startServer({ config, store, logger });

  // Handlers go in before anything announces the server: a supervisor that reads
  // "listening" and sends SIGTERM at once must get a clean shutdown.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const url = usableUrl(running.url);
  logger.info({ url, listen: running.url.replace(/^http:\/\//, ''), metrics: running.metricsUrl, database: redactUrl(config.databaseUrl), template: config.defaultTemplateName }, 'labelmaker listening');
  if (config.publicBaseUrlIsDefault) {
    logger.warn(`PUBLIC_BASE_URL is not set: QR codes point at ${config.publicBaseUrl}. Set it to your inventory's public address.`);
  }
  if (demo?.records) logger.info({ records: demo.records }, 'seeded demo records into the empty database');
  if (demo?.token) printDemoBanner(url, demo.token, config.printing?.printerUri);
  else if (config.demo) logger.info('demo token: shown on the first start only; create another with `labelmaker tokens create --name me --scopes labels:read,labels:print`');
  await explainEmptyStore(store, logger);
}

/** A first start on an empty database says what to do next, instead of answering 401s and 404s silently. */
async function explainEmptyStore(store: Store, logger: Logger): Promise<void> {
  if ((await store.tokens.count()) === 0) {
    logger.warn('no API tokens yet: every request will get a 401. Create one with `labelmaker tokens create --name me --scopes labels:read,labels:print`');
  }
  if ((await store.records.count()) === 0) {
    logger.warn('no records yet: every label request will get a 404. Import them with `labelmaker import records.csv` (columns in docs/operations.md), or run `scripts/run` for demo data');
  }
}

/**
 * The demo token is shown once, on the terminal of whoever started the demo: on
 * stderr, never in the structured log stream (stdout), which is collected and kept.
 * One ready curl per kind of label, and one search, all against the demo records.
 */
function printDemoBanner(url: string, token: string, printerUri: string | undefined): void {
  const base = url.replace('127.0.0.1', 'localhost');
  const curl = (file: string | undefined, path: string) =>
    `  curl -f -H 'Authorization: Bearer ${token}' ${file ? `-o ${file} ` : ''}'${base}${path}'`;
  process.stderr.write(
    [
      '',
      'Demo API token (shown once; it has labels:read, labels:print, templates:write, printers:admin and webhooks:admin):',
      '',
      `  ${token}`,
      '',
      `The label studio (paste the token to sign in): ${base}/`,
      '',
      'A label of each kind (location, item, asset):',
      '',
      curl('location.png', `/v1/labelmaker/location/${DEMO_LOCATIONS.shelf3}`),
      curl('item.png', `/v1/labelmaker/item/${DEMO_ITEMS.drill}`),
      curl('asset.png', '/v1/labelmaker/assets/000-001'),
      '',
      'Find records (and their label URLs):',
      '',
      curl(undefined, '/v1/labelmaker/records?q=shelf'),
      '',
      ...(printerUri ? [`Print one too (the demo printer writes PNGs to ${printerUri}):`, '', curl('asset.png', '/v1/labelmaker/assets/000-001?print=true'), ''] : []),
    ].join('\n') + '\n',
  );
}

/**
 * An address a person can open: a listener on every interface (0.0.0.0, ::) is reached
 * through the loopback address on the same port from this machine (from others, by this
 * machine's name or address, or the port a container publishes); `listen` keeps the bound one.
 */
function usableUrl(url: string): string {
  return url.replace(/^http:\/\/0\.0\.0\.0:/, 'http://127.0.0.1:').replace(/^http:\/\/\[::\]:/, 'http://[::1]:');
}

/** Store events during a command: warnings and errors on stderr, as lines a person reads. */
const CLI_LOGGER: StoreLogger = {
  info: () => {},
  warn: (_fields, msg) => console.error(`labelmaker: ${msg}`),
  error: (_fields, msg) => console.error(`labelmaker: ${msg}`),
};

/** A database URL fit for logs: no password, no query string (it may carry one too). */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    u.search = '';
    return u.toString();
  } catch {
    return url.replace(/[?#].*$/, '').replace(/\/\/[^@/]*@/, '//***@');
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof DatabaseMissingError) {
      console.error(`labelmaker: ${err.message}`);
      process.exit(1);
    }
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof PortInUseError || err instanceof CommandFailed) {
      console.error(`labelmaker: ${err.message}`);
      if (err instanceof UsageError) console.error(`\n${USAGE}`);
      process.exit(2);
    }
    // Whatever failed may quote its input (a file being imported): never let it drive the terminal.
    console.error(`labelmaker: ${printableLines(err instanceof Error ? (err.stack ?? err.message) : String(err))}`);
    process.exit(1);
  },
);
