/**
 * Upkeep of the print-job table, so the queue stays as cheap as it is short:
 * - retention: finished jobs (printed or failed) stay readable for the retention
 *   period, then are deleted, hourly and at start, in small batches so a large
 *   backlog never holds the store's write lock for long;
 * - tidying, every minute: on PostgreSQL every delivered job leaves dead row
 *   versions and index entries behind, and until VACUUM removes them the claim
 *   walks past them (1.0.0's claim took 300 ms after 100k jobs on a server with
 *   autovacuum off). Autovacuum may be off, or too lazy for a queue table, so the
 *   service does it itself (see scripts/bench-claim.ts).
 * Several instances sharing a database may all run it: deleting the same rows
 * twice is harmless, and a VACUUM already running elsewhere is skipped.
 */
import type { Logger } from 'pino';
import type { PrintJobStore } from '../records/types.js';

export interface UpkeepOptions {
  jobs: PrintJobStore;
  /** How long a finished job is kept after its last update. */
  retentionMs: number;
  logger: Logger;
  /** Time between purges (default one hour). */
  purgeEveryMs?: number;
  /** Time between tidyings (default one minute). */
  tidyEveryMs?: number;
  /** Jobs deleted per statement (default 500). */
  batchSize?: number;
}

export interface Upkeep {
  /** Deletes every job past the retention period now; returns how many. */
  purgeNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startQueueUpkeep({ jobs, retentionMs, logger, purgeEveryMs = 3_600_000, tidyEveryMs = 60_000, batchSize = 500 }: UpkeepOptions): Upkeep {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();

  async function purge(): Promise<number> {
    const before = new Date(Date.now() - retentionMs).toISOString();
    let total = 0;
    for (;;) {
      const n = await jobs.purgeFinished(before, batchSize);
      total += n;
      if (n < batchSize || stopped) break;
      await new Promise((r) => setTimeout(r, 10)); // let requests in between batches
    }
    if (total > 0) logger.info({ deleted: total, before }, 'purged finished print jobs past their retention');
    await jobs.tidy({ analyze: true });
    return total;
  }

  let purging: Promise<number> | undefined;
  const purgeNow = (): Promise<number> => (purging ??= track(purge().finally(() => (purging = undefined))));

  function track<T>(p: Promise<T>): Promise<T> {
    running.add(p);
    void p.catch(() => {}).finally(() => running.delete(p));
    return p;
  }

  /** Runs `task` now and then every `everyMs`, until stopped; failures are logged and retried next time. */
  function every(everyMs: number, what: string, task: () => Promise<unknown>): void {
    const tick = (): void => {
      track(task())
        .catch((err: unknown) => logger.error({ err }, `${what} failed; will try again`))
        .finally(() => {
          if (stopped) return;
          const t = setTimeout(() => {
            timers.delete(t);
            tick();
          }, everyMs).unref();
          timers.add(t);
        });
    };
    tick();
  }

  every(purgeEveryMs, 'purging finished print jobs', purgeNow);
  every(tidyEveryMs, 'tidying the print-job table', () => jobs.tidy({ analyze: false }));

  return {
    purgeNow,
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...running]);
    },
  };
}
