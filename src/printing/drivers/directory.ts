/**
 * "Printing" into a folder (a hot folder watched by another tool, or simply
 * an archive). Each job appears atomically: written under a temporary
 * dot-name, fsynced, then hard-linked to its final name (link fails instead
 * of overwriting when two jobs get the same name) and the temp name removed.
 * A watcher therefore never sees a partial PNG under a final name.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { abortError, type PrintDocument, type PrinterDriver } from './types.js';

/** A file-name fragment from a job title: ASCII letters, digits, '.', '_' and '-', at most 80 chars. */
export function safeFileName(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // drop accents: "Crème" → "Creme"
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80)
    .replace(/[-.]+$/, '');
  return s || 'label';
}

function timestamp(d: Date): string {
  // 20250102T030405.678Z: sorts by time, no ':' (invalid on Windows shares).
  return d.toISOString().replace(/[-:]/g, '');
}

export class DirectoryDriver implements PrinterDriver {
  readonly kind = 'directory' as const;
  readonly target: string;

  constructor(private readonly dir: string) {
    this.target = `folder ${dir}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw abortError(signal, `writing to ${this.dir}`);
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.tmp-${randomBytes(6).toString('hex')}.png`);
    try {
      const fh = await open(tmp, 'wx', 0o644);
      try {
        await fh.writeFile(doc.png);
        await fh.sync();
      } finally {
        await fh.close();
      }
      if (signal.aborted) throw abortError(signal, `writing to ${this.dir}`);
      const base = `${timestamp(new Date())}-${safeFileName(doc.title)}`;
      await publish(tmp, this.dir, base);
    } finally {
      await unlink(tmp).catch(() => {});
    }
    await syncDir(this.dir);
  }
}

/** Gives `tmp` its final name without ever replacing an existing file. */
async function publish(tmp: string, dir: string, base: string): Promise<void> {
  for (let n = 1; n < 100; n++) {
    const name = join(dir, n === 1 ? `${base}.png` : `${base}-${n}.png`);
    try {
      await link(tmp, name);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      // File systems without hard links (some network/FAT mounts): rename is still atomic.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
        await rename(tmp, name);
        return;
      }
      throw e;
    }
  }
  throw new Error(`too many files named ${base}*.png in ${dir}`);
}

/** Makes the new directory entry durable; not every platform can fsync a directory. */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // best effort
  }
}
