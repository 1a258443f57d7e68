/** The seam between the API and printing: the API hands over a rendered label. */
import type { LabelShown, NewPrintJob, PrintBatch, PrintJob, PrintJobPage, PrintJobQuery } from '../records/types.js';

export interface PrintRequest {
  png: Buffer;
  /** Canonical name of the label stock (stock.ts): printers need its dots and media ids (stored as the job's `template`). */
  stockName: string;
  /** Job name shown by the printer, e.g. "item label: Cordless drill". */
  title: string;
  /** Label fields for command placeholders: kind, id, name, assetId, url. */
  fields: Record<string, string>;
  /** Id of the API token that asked: idempotency keys are per token. */
  tokenId: string;
  /** Client-chosen key: the same key (per token, for 24 hours) returns the same job. */
  idempotencyKey?: string;
  /** The printer chosen for it (assign.ts); the queue's own printer when absent. */
  printer?: string;
  /** Why it is held on that printer (holds.ts); null or absent when it can print. */
  heldReason?: string | null;
  /** What the label shows, when it is a label of one of our records (remembered when it prints). */
  label?: LabelShown;
}

/** Many labels at once: all accepted in one transaction under one idempotency key. */
export interface PrintBatchRequest {
  labels: Omit<PrintRequest, 'tokenId' | 'idempotencyKey'>[];
  /** Canonical stock name of the batch: its first label's (a stale reprint's labels may have others: each label names its own). */
  stockName: string;
  tokenId: string;
  idempotencyKey?: string;
  /** Digest of the request: a replayed key must carry the same one. */
  requestHash: string;
  /** The printer chosen for every job of the batch (each label says why it is held there, as PrintRequest). */
  printer?: string;
}

export interface PrintQueue {
  /** The job a submit would store, not stored (print rules store theirs in their consumer's transaction, sql/print-rules.ts). */
  prepare(request: PrintRequest): NewPrintJob;
  /** Wakes the worker (after jobs were stored without submit). */
  wake(): void;
  /** Stores the job durably (before the caller answers) and wakes the worker. */
  submit(request: PrintRequest): Promise<{ job: PrintJob; created: boolean }>;
  get(jobId: string): Promise<PrintJob | undefined>;
  /** Stores every job of the batch durably in one transaction (all or none) and wakes the worker. */
  submitBatch(request: PrintBatchRequest): Promise<{ batch: PrintBatch; created: boolean }>;
  getBatch(batchId: string): Promise<PrintBatch | undefined>;
  /** One token's jobs, newest first. */
  list(query: PrintJobQuery): Promise<PrintJobPage>;
  /**
   * Puts the token's failed job back in the queue and wakes the worker (`requeued`), or
   * answers a job already back in the queue after an earlier retry as it is. Undefined
   * when the token has no such job; JobNotFailedError when it is neither.
   */
  retry(jobId: string, tokenId: string): Promise<{ job: PrintJob; requeued: boolean } | undefined>;
  /**
   * Cancels the token's job while it waits in the queue (`cancelled`), or answers a job
   * already cancelled as it is. Undefined when the token has no such job;
   * JobNotCancellableError when it is being sent, printed or failed.
   */
  cancel(jobId: string, tokenId: string): Promise<{ job: PrintJob; cancelled: boolean } | undefined>;
  /**
   * Moves the token's queued job (held or not) to another printer, its hold looked at again
   * there. Undefined when the token has no such job; UnknownPrinterError for a printer the
   * fleet lacks; JobNotMovableError when it is being sent, printed, failed or cancelled.
   */
  move(jobId: string, tokenId: string, printer: string): Promise<PrintJob | undefined>;
}
