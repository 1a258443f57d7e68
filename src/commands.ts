/**
 * Command-line operations on the store: importing records and managing API tokens.
 * Each returns the text to print; main.ts owns the process (argv, exit codes).
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { demoRecords, generateToken, hashToken, importRecords, parseScopes, sqlitePathOf } from './records/index.js';
import type { Scope, Store, TokenInfo } from './records/types.js';

export class UsageError extends Error {}

export const USAGE = `Usage: labelmaker [command]

  serve                                  run the HTTP service (default)
  init                                   create the database (a first start does this on its own;
                                         after a SQLite database was lost, this starts over empty)
  restore <file>                         SQLite: put a backup or rescue copy back where the lost
                                         database was (Labelmaker stopped)
  import <file.json|file.csv> [--format json|csv]
                                         import records; all rows land or none do
  tokens create --name <name> [--scopes labels:read,labels:print]
                                         create an API token (shown once)
  tokens list                            list tokens (never their secrets)
  tokens revoke <id>                     revoke a token by its id

Configuration comes from environment variables; see README.md.`;

/** `restore <file>`: runs without opening the store (the database is missing). */
export async function restoreCommand(databaseUrl: string, args: string[]): Promise<string> {
  const [file] = args;
  if (!file) throw new UsageError('restore needs the file to restore (a backup or a .rescued- copy)');
  const path = sqlitePathOf(databaseUrl);
  if (path === undefined || path === ':memory:') throw new UsageError('restore works on a SQLite DATABASE_URL only; restore PostgreSQL with its own tools');
  const { restoreSqliteDatabase, RestoreError } = await import('./records/sqlite-restore.js');
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

/** On an empty database: demo records and a demo token with every scope. */
export async function seedDemo(store: Store): Promise<{ token?: string; records: number }> {
  let records = 0;
  if ((await store.records.count()) === 0) {
    const demo = demoRecords();
    await store.records.upsertMany(demo);
    records = demo.length;
  }
  if ((await store.tokens.count()) > 0) return { records };
  const { token } = await createToken(store, 'demo', ['labels:read', 'labels:print']);
  return { token, records };
}

export async function runCommand(store: Store, args: string[]): Promise<string> {
  const [command, sub, ...rest] = args;
  if (command === 'init') {
    // main.ts opened the store allowing a new database in place of a lost one.
    return `the database is ready: ${await store.records.count()} record(s), ${await store.tokens.count()} token(s)`;
  }
  if (command === 'import') {
    const file = sub;
    if (!file) throw new UsageError('import needs a file');
    const format = option(rest, '--format') ?? extname(file).slice(1).toLowerCase();
    if (format !== 'json' && format !== 'csv') throw new UsageError(`unknown format '${format}': use --format json or csv`);
    const text = await readFile(file, 'utf8');
    const result = await importRecords(store, text, format);
    if (result.errors.length > 0) {
      throw new UsageError(`nothing imported; ${result.errors.length} problem(s) in ${file}:\n  ${result.errors.join('\n  ')}`);
    }
    return `imported ${result.imported} record(s) from ${file}`;
  }
  if (command === 'tokens') {
    if (sub === 'create') {
      const name = option(rest, '--name');
      if (!name) throw new UsageError('tokens create needs --name');
      const scopes = parseScopes((option(rest, '--scopes') ?? 'labels:read').replaceAll(',', ' '));
      if (scopes.length === 0) throw new UsageError('a token needs at least one scope');
      const { token, info } = await createToken(store, name, scopes);
      return `created token ${info.id} (${info.name}; scopes: ${info.scopes.join(', ')})\n\n  ${token}\n\nThis is the only time the token is shown: store it now.`;
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

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}
