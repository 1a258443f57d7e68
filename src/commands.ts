/**
 * Command-line operations on the store: importing records and managing API tokens.
 * Each returns the text to print; main.ts owns the process (argv, exit codes).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { importProgress } from './progress.js';
import { AGENT_USAGE } from './printing/agent/usage.js';
import type { FieldDefinition } from './records/fields.js';
import { DEMO_SCOPES, INTEGRATION_SCOPES, demoRecords, generateToken, hashToken, importRecords, parseScopes, printable, RULES_TEXT, sqlitePathOf } from './records/index.js';
import type { Scope, Store, TokenInfo } from './records/types.js';

/** Wrong arguments: the message and the usage are printed, exit code 2. */
export class UsageError extends Error {}
/** The command ran and failed on its input (a file with problems): the message is printed, exit code 2. */
export class CommandFailed extends Error {}

export const USAGE = `Usage: labelmaker [--config FILE] [command]

  serve                                  run the HTTP service (default)
  init                                   create the database (a first start does this on its own;
                                         after a SQLite database was lost, this starts over empty)
  backup <file>                          SQLite: write a consistent copy of the database to a new
                                         file, also while Labelmaker runs and writes (PostgreSQL:
                                         pg_dump, see docs/operations.md)
  restore <file>                         SQLite: put a backup or rescue copy back where the lost
                                         database was (Labelmaker stopped)
  import <file.json|file.csv|-> [--format json|csv]
                                         import records (- reads stdin); all rows land or none do
                                         every record must follow these rules:
                                           ${RULES_TEXT.join('\n                                           ')}
  tokens create --name <name> [--scopes labels:read,labels:print,templates:write,printers:admin,records:write,webhooks:admin]
                                         create an API token (shown once; labels:read unless
                                         --scopes says; printers:admin defines printers,
                                         records:write writes records through the API,
                                         webhooks:admin registers webhooks)
  tokens create --name <name> --scopes integrations:render,integrations:print
                                         create an integration key for Homebox or Grocy (shown
                                         once; it goes in their URL and works only there)
  tokens create --name <agent> --scopes printers:agent
                                         create the token of a labelmaker agent (named as the agent)
  tokens list                            list tokens (never their secrets)
  tokens revoke <id>                     revoke a token by its id

${AGENT_USAGE}

  --help, -h                             this text
  --version, -V                          the release (service, API document and client share it)

Configuration comes from environment variables, or the same names in a config file
(--config FILE or LABELMAKER_CONFIG; the environment wins); secrets also from files
(DATABASE_URL_FILE, REDIS_URL_FILE, PRINTER_URI_FILE, LABELMAKER_AGENT_TOKEN_FILE); a config file's
line with a name that is not a setting stops the start. See docs/operations.md.`;

/** `backup <file>`: an online copy of the SQLite database; the store is not opened (no migration runs). */
export async function backupCommand(databaseUrl: string, args: string[]): Promise<string> {
  const [file, ...extra] = args;
  if (!file || extra.length > 0) throw new UsageError('backup needs exactly one argument: the new file to write the copy to');
  const path = sqlitePathOf(databaseUrl);
  if (path === undefined) throw new UsageError('backup copies a SQLite database; back up PostgreSQL with pg_dump (pg_dump -Fc -f labelmaker.dump "$DATABASE_URL", see docs/operations.md)');
  if (path === ':memory:') throw new UsageError('an in-memory database (:memory:) has nothing to back up');
  const { backupSqliteDatabase, BackupError } = await import('./records/sqlite/backup.js');
  try {
    const r = await backupSqliteDatabase(path, file);
    return `backed up ${path} to ${file}: ${r.records} record(s), ${r.tokens} token(s), schema version ${r.schemaVersion}, ${(r.bytes / 1024).toFixed(0)} KB`;
  } catch (err) {
    if (err instanceof BackupError) throw new CommandFailed(err.message);
    throw err;
  }
}

/** `restore <file>`: runs without opening the store (the database is missing). */
export async function restoreCommand(databaseUrl: string, args: string[]): Promise<string> {
  const [file] = args;
  if (!file) throw new UsageError('restore needs the file to restore (a backup or a .rescued- copy)');
  const path = sqlitePathOf(databaseUrl);
  if (path === undefined || path === ':memory:') throw new UsageError('restore works on a SQLite DATABASE_URL only; restore PostgreSQL with its own tools');
  const { restoreSqliteDatabase, RestoreError } = await import('./records/sqlite/restore.js');
  try {
    const r = restoreSqliteDatabase(file, path);
    return [
      `restored ${path} from ${file}: ${r.records} record(s), ${r.tokens} token(s), ${r.pendingJobs} print job(s) still to print (delivered after the next start)`,
      ...r.movedAside.map((f) => `moved the lost database's leftover file aside: ${f}`),
    ].join('\n');
  } catch (err) {
    if (err instanceof RestoreError) throw new UsageError(err.message);
    throw err;
  }
}

export async function createToken(store: Store, name: string, scopes: Scope[]): Promise<{ token: string; info: TokenInfo }> {
  const { id, token } = generateToken();
  const info = await store.tokens.insert({ id, name, scopes, hash: hashToken(token) });
  return { token, info };
}

/**
 * An integration key holds integration scopes only: it travels in URLs (Homebox's and
 * Grocy's settings, their logs), so it must not also open the ordinary API.
 */
export function checkTokenScopes(scopes: readonly Scope[]): void {
  const integration = scopes.filter((s) => INTEGRATION_SCOPES.includes(s));
  if (integration.length > 0 && integration.length < scopes.length) {
    throw new UsageError(`integration keys hold only ${INTEGRATION_SCOPES.join(', ')}; create a separate token for ${scopes.filter((s) => !INTEGRATION_SCOPES.includes(s)).join(', ')}`);
  }
}

/** On an empty database: demo records and a demo token with every ordinary API scope. */
export async function seedDemo(store: Store): Promise<{ token?: string; records: number }> {
  let records = 0;
  if ((await store.records.count()) === 0) {
    const demo = demoRecords();
    await store.records.upsertMany(demo);
    records = demo.length;
  }
  if ((await store.tokens.count()) > 0) return { records };
  const { token } = await createToken(store, 'demo', [...DEMO_SCOPES]);
  return { token, records };
}

export async function runCommand(store: Store, args: string[], fields: readonly FieldDefinition[] = []): Promise<string> {
  const [command, sub, ...rest] = args;
  if (command === 'init') {
    // main.ts opened the store allowing a new database in place of a lost one.
    return `the database is ready: ${await store.records.count()} record(s), ${await store.tokens.count()} token(s)`;
  }
  if (command === 'import') return importCommand(store, args, fields);
  if (command === 'tokens') {
    if (sub === 'create') {
      const name = option(rest, '--name');
      if (!name) throw new UsageError('tokens create needs --name');
      const scopes = parseScopes((option(rest, '--scopes') ?? 'labels:read').replaceAll(',', ' '));
      if (scopes.length === 0) throw new UsageError('a token needs at least one scope');
      checkTokenScopes(scopes);
      const { token, info } = await createToken(store, name, scopes);
      const kind = scopes.some((s) => INTEGRATION_SCOPES.includes(s)) ? 'integration key' : 'token';
      return `created ${kind} ${info.id} (${info.name}; scopes: ${info.scopes.join(', ')})\n\n  ${token}\n\nThis is the only time the ${kind} is shown: store it now.`;
    }
    if (sub === 'list') {
      const tokens = await store.tokens.list();
      if (tokens.length === 0) return 'no tokens';
      return tokens
        .map((t) => `${t.id}  ${t.revokedAt ? 'revoked' : 'active '}  ${t.scopes.join(',').padEnd(24)}  created ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}  ${t.name}`)
        .join('\n');
    }
    if (sub === 'revoke') {
      const id = rest[0];
      if (!id) throw new UsageError('tokens revoke needs a token id');
      if (!(await store.tokens.revoke(id))) throw new UsageError(`no active token has the id '${id}'`);
      return `revoked token ${id}`;
    }
    throw new UsageError(`unknown tokens command '${sub ?? ''}'`);
  }
  throw new UsageError(`unknown command '${command}'`);
}

/** What `import` reads, checked before the store opens: a missing file is one clear line and creates no database. */
export interface ImportSource {
  file: string;
  format: 'json' | 'csv';
  shown: string;
  size?: number;
}

export async function checkImportSource(args: string[]): Promise<ImportSource> {
  const [, file, ...rest] = args;
  if (!file) throw new UsageError('import needs a file (or - for standard input)');
  const format = option(rest, '--format') ?? extname(file).slice(1).toLowerCase();
  if (format !== 'json' && format !== 'csv') throw new UsageError(`unknown format '${printable(format, 20)}': use --format json or csv`);
  const shown = file === '-' ? 'standard input' : printable(file, 120);
  if (file === '-') return { file, format, shown };
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new CommandFailed(`cannot read ${shown}: ${err.code === 'ENOENT' ? 'no such file' : err.code ?? err.message}`);
  });
  if (!info.isFile() && !info.isFIFO()) throw new CommandFailed(`cannot read ${shown}: not a file`);
  return { file, format, shown, size: info.isFile() ? info.size : undefined };
}

async function importCommand(store: Store, args: string[], fields: readonly FieldDefinition[]): Promise<string> {
  const { file, format, shown, size } = await checkImportSource(args);
  const input = file === '-' ? process.stdin : createReadStream(file);
  const progress = importProgress(process.stderr, shown, size);
  const started = performance.now();
  let result;
  try {
    result = await importRecords(store, input, format, { onProgress: progress.update, fields });
  } finally {
    progress.stop();
    if (input !== process.stdin) input.destroy();
  }
  if (result.errors.length > 0) {
    const more = result.problemCount > result.errors.length ? `\n  … and ${result.problemCount - result.errors.length} more (the first ${result.errors.length} are listed, by row)` : '';
    throw new CommandFailed(
      `nothing imported; ${result.problemCount} problem(s) in ${shown}:\n  ${result.errors.join('\n  ')}${more}\n\nEvery record must follow these rules:\n  ${RULES_TEXT.join('\n  ')}`,
    );
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const unchanged = result.imported - result.written;
  return (
    `imported ${result.imported} record(s) from ${shown} in ${seconds} s: ${result.written} new or changed, ${unchanged} unchanged` +
    (result.lockMs !== undefined ? `; the write held the database for ${(result.lockMs / 1000).toFixed(2)} s` : '')
  );
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}
