/**
 * The print quota (PRINT_QUOTA_PER_MINUTE): labels one token or integration key may
 * send to the printer per minute, apart from its request budget (rate-limit.ts). A
 * request budget counts requests, and one batch request prints up to 1000 labels: the
 * quota counts labels, so a leaked print token cannot empty the roll or fill the queue.
 *
 * It wraps the print queue, so every print path (print=true, batches, printImage,
 * Homebox, Grocy, retries) is counted in one place, when a job is about to be stored.
 * Labels are given back when nothing new was stored (an idempotent replay, a refused
 * request), so a client that retries with its Idempotency-Key is not charged twice.
 */
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { PrintQueue } from '../printing/index.js';
import type { RateLimiter } from './rate-limit.js';
import { HttpProblem } from './problems.js';

export function withPrintQuota(queue: PrintQueue, { limiter, limit }: RateLimiter['printQuota'], logger: Logger): PrintQueue {
  const keyOf = (tokenId: string) => `token:${tokenId}`;
  const giveBack = (tokenId: string, labels: number) => void limiter.reward(keyOf(tokenId), labels).catch(() => undefined);

  const take = async (tokenId: string, labels: number): Promise<void> => {
    try {
      await limiter.consume(keyOf(tokenId), labels);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        // Neither the shared counter nor its in-memory insurance answered: print, as the request limit lets requests through.
        logger.error({ err: rejection }, 'print quota could not be counted; labels let through');
        return;
      }
      giveBack(tokenId, labels); // refused labels are not printed, so they do not count
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      const detail =
        labels > limit
          ? `${labels} labels are more than this server's print quota of ${limit} labels per minute; print them in smaller batches. Nothing was printed.`
          : `Print quota of ${limit} labels per minute reached; retry in ${seconds} seconds. Nothing was printed.`;
      throw new HttpProblem('rate-limited', detail, { 'Retry-After': String(seconds) });
    }
  };

  /** Counts `labels` for `tokenId` around `store`, giving them back unless it stored something new. */
  const counted = async <T>(tokenId: string, labels: number, store: () => Promise<T>, isNew: (result: T) => boolean): Promise<T> => {
    await take(tokenId, labels);
    try {
      const result = await store();
      if (!isNew(result)) giveBack(tokenId, labels);
      return result;
    } catch (err) {
      giveBack(tokenId, labels);
      throw err;
    }
  };

  return {
    ...queue,
    submit: (request) => counted(request.tokenId, 1, () => queue.submit(request), (r) => r.created),
    submitBatch: (request) => counted(request.tokenId, request.labels.length, () => queue.submitBatch(request), (r) => r.created),
    retry: (jobId, tokenId) => counted(tokenId, 1, () => queue.retry(jobId, tokenId), (r) => r?.requeued === true),
  };
}
