/**
 * Accepting print jobs: durable first, delivery later (worker.ts). An accepted
 * job is in the store before the HTTP response goes out, so a crash after the
 * response cannot lose it.
 */
import { randomUUID } from 'node:crypto';
import { ProblemError } from '../errors.js';
import type { NewPrintJob, PrinterStore, PrintJobStore } from '../records/types.js';
import { heldOn } from './assign.js';
import { UnknownPrinterError } from './routing.js';
import type { PrintBatchRequest, PrintQueue, PrintRequest } from './types.js';

/** How long an idempotency key names its job. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A replayed Idempotency-Key that asks for another label or batch than the one it named: nothing was printed. */
export class IdempotencyMismatchError extends ProblemError {
  override name = 'IdempotencyMismatchError';
  constructor(message: string) {
    super('idempotency-key-reused', message);
  }
}

/** A retry of a job that is not failed (or whose label is no longer stored): nothing changed. */
export class JobNotFailedError extends ProblemError {
  override name = 'JobNotFailedError';
  constructor(message: string) {
    super('job-not-failed', message);
  }
}

/** A cancel of a job that is no longer waiting (being sent, printed or failed): nothing changed. */
export class JobNotCancellableError extends ProblemError {
  override name = 'JobNotCancellableError';
  constructor(message: string) {
    super('job-not-cancellable', message);
  }
}

/** A move of a job that is no longer waiting (being sent, printed, failed or cancelled): nothing changed. */
export class JobNotMovableError extends ProblemError {
  override name = 'JobNotMovableError';
  constructor(message: string) {
    super('job-not-movable', message);
  }
}

export interface QueueOptions {
  jobs: PrintJobStore;
  /** The fleet, for moves (the new printer's hold). */
  printers?: Pick<PrinterStore, 'get' | 'list'>;
  /** The printer as safe to show (no credentials). */
  printer: string;
  maxAttempts: number;
  /** Called after a new job is stored, to wake the worker. */
  onSubmit?: () => void;
}

export function createPrintQueue({ jobs, printers, printer, maxAttempts, onSubmit }: QueueOptions): PrintQueue {
  const prepare = (request: PrintRequest): NewPrintJob => ({
    id: randomUUID(),
    printer: request.printer ?? printer,
    heldReason: request.heldReason ?? null,
    template: request.stockName,
    title: request.title,
    fields: request.fields,
    tokenId: request.tokenId,
    idempotencyKey: request.idempotencyKey ?? null,
    maxAttempts,
    png: request.png,
    label: request.label ?? null,
  });
  return {
    prepare,
    wake: () => onSubmit?.(),
    async submit(request: PrintRequest) {
      const keySince = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS).toISOString();
      const result = await jobs.submit(prepare(request), keySince);
      if (!result.created && !sameLabel(result.job.fields, result.job.template, request)) {
        throw new IdempotencyMismatchError(
          `Idempotency-Key '${request.idempotencyKey}' was already used for another label (job ${result.job.id}); use a new key.`,
        );
      }
      if (result.created) onSubmit?.();
      return result;
    },
    get: (jobId) => jobs.get(jobId),
    async submitBatch(request: PrintBatchRequest) {
      const keySince = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS).toISOString();
      const result = await jobs.submitBatch(
        { id: randomUUID(), tokenId: request.tokenId, idempotencyKey: request.idempotencyKey ?? null, requestHash: request.requestHash, printer: request.printer ?? printer, template: request.stockName },
        // Each label a job of its own: the batch's printer, its own hold, and no key (the batch holds it).
        request.labels.map((label) => prepare({ ...label, tokenId: request.tokenId, printer: request.printer })),
        keySince,
      );
      if (!result.created && result.batch.requestHash !== request.requestHash) {
        throw new IdempotencyMismatchError(
          `Idempotency-Key '${request.idempotencyKey}' was already used for another batch (${result.batch.id}); use a new key.`,
        );
      }
      if (result.created) onSubmit?.();
      return result;
    },
    getBatch: (batchId) => jobs.getBatch(batchId),
    list: (query) => jobs.list(query),
    async retry(jobId, tokenId) {
      const mine = async () => {
        const job = await jobs.get(jobId);
        return job?.tokenId === tokenId ? job : undefined;
      };
      const job = await mine();
      if (!job) return undefined;
      if (job.state === 'failed') {
        // Back in the queue under the hold rule, as a new job would be: a printer with the wrong roll or offline holds it.
        const printer = await printers?.get(job.printer);
        const requeued = await jobs.requeueFailed(jobId, printer ? heldOn(printer, job.template) : null);
        if (requeued) {
          onSubmit?.();
          return { job: requeued, requeued: true };
        }
      }
      // Not requeued here: another request's retry may have just done it, so look again.
      const now = await mine();
      if (!now) return undefined;
      if ((now.state === 'queued' || now.state === 'printing') && now.retriedAt !== null) return { job: now, requeued: false };
      throw new JobNotFailedError(
        now.cancelledAt !== null
          ? `Print job ${jobId} was cancelled: its label is no longer stored. Print it again instead.`
          : now.state === 'failed'
            ? `Print job ${jobId} failed before this server kept the labels of failed jobs: its label is no longer stored. Print it again instead.`
            : `Print job ${jobId} is ${now.state}, not failed: only a failed job can be retried.`,
      );
    },
    async cancel(jobId, tokenId) {
      const cancelled = await jobs.cancelQueued(jobId, tokenId);
      if (cancelled) return { job: cancelled, cancelled: true };
      // Not cancelled here: not the token's, already cancelled, or no longer waiting.
      const job = await jobs.get(jobId);
      if (!job || job.tokenId !== tokenId) return undefined;
      if (job.cancelledAt !== null) return { job, cancelled: false };
      throw new JobNotCancellableError(
        job.state === 'printing'
          ? `Print job ${jobId} is being sent to the printer: it can no longer be cancelled, and it may print.`
          : job.state === 'printed'
            ? `Print job ${jobId} has printed: there is nothing to cancel.`
            : `Print job ${jobId} failed: it prints only if it is retried, so there is nothing to cancel.`,
      );
    },
    async move(jobId, tokenId, to) {
      const target = await printers?.get(to);
      if (!target) throw new UnknownPrinterError(to, (await printers?.list())?.map((p) => p.name) ?? []);
      const job = await jobs.get(jobId);
      if (!job || job.tokenId !== tokenId) return undefined;
      const moved = await jobs.moveQueued(jobId, tokenId, to, heldOn(target, job.template));
      if (moved) {
        onSubmit?.();
        return moved;
      }
      const now = await jobs.get(jobId);
      throw new JobNotMovableError(
        now?.cancelledAt != null
          ? `Print job ${jobId} was cancelled: there is nothing to move.`
          : `Print job ${jobId} is ${now?.state ?? 'gone'}, not waiting: only a queued or held job can be moved.`,
      );
    },
  };
}

/** A replayed key must ask for the same label (same record and stock); its content may have changed since. */
function sameLabel(fields: Record<string, string>, stockName: string, request: PrintRequest): boolean {
  return stockName === request.stockName && fields.kind === request.fields.kind && fields.id === request.fields.id;
}
