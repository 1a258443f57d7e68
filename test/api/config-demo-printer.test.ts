/**
 * The demo's folder printer lies beside the SQLite database, so a container whose working
 * directory is read-only (/app) prints into its data volume, not `EACCES: mkdir '/app/data'`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const folder = (env: Record<string, string>) => loadConfig({ DEMO: 'true', ...env }).printing.printerUri;

describe('the demo folder printer', () => {
  it('is printed-labels beside the SQLite database', () => {
    expect(folder({ DATABASE_URL: 'sqlite:/data/labelmaker.db' })).toBe('file:///data/printed-labels');
    expect(folder({ DATABASE_URL: '/srv/lm/db.sqlite' })).toBe('file:///srv/lm/printed-labels');
  });

  it('stays data/printed-labels by default, with PostgreSQL and in memory', () => {
    const def = pathToFileURL(resolve('data/printed-labels')).href;
    expect(folder({})).toBe(def);
    expect(folder({ DATABASE_URL: 'postgres://u@h/db' })).toBe(def);
    expect(folder({ DATABASE_URL: 'sqlite::memory:' })).toBe(def);
  });

  it('gives way to PRINTER_URI, and is off outside the demo', () => {
    expect(folder({ DATABASE_URL: 'sqlite:/data/x.db', PRINTER_URI: 'file:///spool' })).toBe('file:///spool');
    expect(loadConfig({ DATABASE_URL: 'sqlite:/data/x.db' }).printing.printerUri).toBeUndefined();
  });
});
