/**
 * "Printing" into a folder (a hot folder watched by another tool, or simply
 * an archive). Each job appears atomically under a name that carries the job's
 * id: written under a hidden temporary name that is not a label (`.<job>.<random>.partial`),
 * fsynced, then hard-linked to its final name (link fails instead of
 * overwriting) and the temporary name removed. A watcher therefore never sees a
 * partial PNG under a final name, and a redelivery of the same job finds its
 * file already there: it adds nothing and replaces nothing.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { abortError, type EarlierAttempt, type PrintDocument, type PrinterDriver } from './types.js';

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

/**
 * The job's file name: `<accepted at>-<title>-<job id>.png`, e.g.
 * `20250102T030405.678Z-item-label-Cordless-drill-3f2b8c1e-....png`. It sorts by
 * acceptance time, has no ':' (invalid on Windows shares), and is the same for
 * every attempt at the job.
 */
export function labelFileName(doc: Pick<PrintDocument, 'jobId' | 'createdAt' | 'title'>): string {
  const accepted = new Date(doc.createdAt).toISOString().replace(/[-:]/g, '');
  return `${accepted}-${safeFileName(doc.title)}-${safeFileName(doc.jobId)}.png`;
}

const PARTIAL = '.partial';

export class DirectoryDriver implements PrinterDriver {
  readonly kind = 'directory' as const;
  readonly target: string;

  constructor(private readonly dir: string) {
    this.target = `folder ${dir}`;
  }

  /** Whether the folder is known to exist: made on the first job, and again only if it disappears. */
  private folderMade = false;

  // Each file operation waits for a libuv thread and then a turn of the event loop, which
  // under HTTP load is most of its cost: the folder is not re-made for every job, no stat
  // asks whether the job is already there (link refuses a taken name, below), and the
  // temporary name goes while the folder is synced. 8 turns a job instead of 11.
  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw abortError(signal, `writing to ${this.dir}`);
    const final = join(this.dir, labelFileName(doc));
    const tmp = join(this.dir, `${partialPrefix(doc)}${randomBytes(6).toString('hex')}${PARTIAL}`);
    try {
      const fh = await this.createPartial(tmp);
      try {
        await fh.writeFile(doc.png);
        await fh.sync();
      } finally {
        await fh.close();
      }
      if (signal.aborted) throw abortError(signal, `writing to ${this.dir}`);
      // An earlier attempt that delivered the job holds the final name: nothing is replaced.
      await publish(tmp, final);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await Promise.all([unlink(tmp).catch(() => {}), syncDir(this.dir)]);
  }

  private async createPartial(tmp: string) {
    if (!this.folderMade) {
      await mkdir(this.dir, { recursive: true });
      this.folderMade = true;
    }
    try {
      return await open(tmp, 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The folder went away while we ran (cleaned up, remounted): make it again.
      await mkdir(this.dir, { recursive: true });
      return open(tmp, 'wx', 0o644);
    }
  }

  /** The file's presence says it all; what a crash left half done is removed first. */
  async checkEarlierAttempt(doc: PrintDocument): Promise<EarlierAttempt> {
    const prefix = partialPrefix(doc);
    const names = await readdir(this.dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
    await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith(PARTIAL)).map((n) => unlink(join(this.dir, n)).catch(() => {})));
    return (await exists(join(this.dir, labelFileName(doc)))) ? 'delivered' : 'not-delivered';
  }
}

/** Temporary names are hidden and do not end in .png: nothing a crash leaves behind looks like a label. */
function partialPrefix(doc: PrintDocument): string {
  return `.${safeFileName(doc.jobId)}.`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** Gives `tmp` its final name, never replacing an existing file (which can only be this job's, delivered already). */
async function publish(tmp: string, final: string): Promise<void> {
  try {
    await link(tmp, final);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    // File systems without hard links (some network/FAT mounts): rename is still atomic.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      if (!(await exists(final))) await rename(tmp, final);
      return;
    }
    throw e;
  }
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
