/**
 * The demo's folder printer lies in DATA_DIR (beside the default SQLite database), so a
 * container whose working directory is read-only (/app) prints into its data volume, not
 * `EACCES: mkdir '/app/data'`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const folder = (env: Record<string, string>) => loadConfig({ DEMO: 'true', ...env }).printing.printerUri;

describe('the demo folder printer', () => {
  it('is printed-labels in DATA_DIR, beside the default database', () => {
    expect(folder({ DATA_DIR: '/data' })).toBe('file:///data/printed-labels');
    expect(loadConfig({ DATA_DIR: '/data' }).databaseUrl).toBe('sqlite:/data/labelmaker.db');
  });

  it('is data/ in the installation by default, not the working directory', () => {
    const config = loadConfig({ DEMO: 'true' });
    expect(config.printing.printerUri).toBe(pathToFileURL(join(config.dataDir, 'printed-labels')).href);
    expect(config.dataDir).toBe(join(import.meta.dirname, '..', '..', 'data'));
  });

  it('gives way to PRINTER_URI, and is off outside the demo', () => {
    expect(folder({ DATA_DIR: '/data', PRINTER_URI: 'file:///spool' })).toBe('file:///spool');
    expect(loadConfig({ DATA_DIR: '/data' }).printing.printerUri).toBeUndefined();
  });
});
