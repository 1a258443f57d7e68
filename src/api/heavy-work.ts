/**
 * A bound on the heavy requests one token may have in flight: sheets, print
 * batches, template previews, image prints. Each costs seconds of render-thread
 * time and megabytes while it runs; the rate limit (rate-limit.ts) counts requests
 * per minute, not what they cost, so without this one client sending ten
 * 1000-label sheets at once would hold every render thread and everyone's labels
 * would wait behind them. Over the bound the request is refused at once (429 with
 * Retry-After, as the spec's TooManyRequests documents), before any work is done;
 * other tokens are not affected.
 *
 *   const release = await heavy.admit(tokenOf(res).id);
 *   try { ...draw... } finally { release(); }
 *
 * Counted per process: each instance bounds what it draws itself.
 */
import { HttpProblem } from './problems.js';

export type Release = () => void;

export interface HeavyWork {
  /** Admits one heavy request of `tokenId`, or throws HttpProblem 429 when it has `perToken` in flight. Call the release once done (a second call does nothing). */
  admit(tokenId: string): Promise<Release>;
  /** Runs `work` admitted, releasing when it settles. */
  run<T>(tokenId: string, work: () => Promise<T>): Promise<T>;
  /** Heavy requests now in flight for a token (for tests and metrics). */
  inFlight(tokenId: string): number;
}

/** Seconds a refused client is told to wait: about what a 1000-label sheet takes on a small machine. */
export const HEAVY_RETRY_AFTER_SECONDS = 5;

export function heavyWork(perToken: number): HeavyWork {
  const counts = new Map<string, number>();
  const admit = async (tokenId: string): Promise<Release> => {
    const now = counts.get(tokenId) ?? 0;
    if (now >= perToken) {
      throw new HttpProblem(
        'rate-limited',
        `This token already has ${now} heavy request${now === 1 ? '' : 's'} (sheets, print batches, previews, image prints) in progress, the most it may have at once; retry in ${HEAVY_RETRY_AFTER_SECONDS} seconds, or once one has finished.`,
        { 'Retry-After': String(HEAVY_RETRY_AFTER_SECONDS) },
      );
    }
    counts.set(tokenId, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (counts.get(tokenId) ?? 1) - 1;
      if (left > 0) counts.set(tokenId, left);
      else counts.delete(tokenId); // no entry per token ever seen
    };
  };
  return {
    admit,
    async run(tokenId, work) {
      const release = await admit(tokenId);
      try {
        return await work();
      } finally {
        release();
      }
    },
    inFlight: (tokenId) => counts.get(tokenId) ?? 0,
  };
}
