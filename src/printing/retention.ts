/**
 * Finished print jobs (printed or failed) are kept for the retention period, so
 * their status stays readable, then deleted. Runs at start and every hour, in
 * small batches so a large backlog never holds the store's write lock for long.
 * Several instances sharing a database may all run it: deleting the same rows
 * twice is harmless.
 */
import type { Logger } from 'pino';
import type { PrintJobStore } from '../records/types.js';

export interface RetentionOptions {
  jobs: PrintJobStore;
  /** How long a finished job is kept after its last update. */
  retentionMs: number;
  logger: Logger;
  /** Time between purges (default one hour). */
  intervalMs?: number;
  /** Jobs deleted per statement (default 500). */
  batchSize?: number;
}

export interface Retention {
  /** Deletes every job past the retention period now; returns how many. */
  purgeNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startRetention({ jobs, retentionMs, logger, intervalMs = 3_600_000, batchSize = 500 }: RetentionOptions): Retention {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

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
    return total;
  }

  const purgeNow = (): Promise<number> => {
    running ??= purge().finally(() => (running = undefined));
    return running;
  };

  const tick = (): void => {
    purgeNow()
      .catch((err: unknown) => logger.error({ err }, 'purging finished print jobs failed; will try again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  tick();

  return {
    purgeNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
