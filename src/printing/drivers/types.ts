/** The contract between the print queue and the printer drivers. */
import type { PrinterStatus } from '../status/types.js';
import type { DriverKind } from '../schemes.js';

export interface PrintDocument {
  /** The print job's id (a UUID): drivers name their output after it, so a redelivery can be recognised. */
  jobId: string;
  /** When the job was accepted (ISO 8601): fixed for the job's life, unlike the time of an attempt. */
  createdAt: string;
  /** 1-bit (or any) PNG at the printer's native dots. */
  png: Buffer;
  /** Canonical stock name (labels/stock.ts), e.g. 'brother-ql-62x29'. */
  stockName: string;
  /** Job name, e.g. 'item label: Cordless drill'. */
  title: string;
  /** Label fields for command placeholders: kind, id, name, assetId, url. */
  fields: Record<string, string>;
}

/**
 * What the printer says about a job that an earlier, unfinished attempt may have
 * delivered: 'delivered' (it has the job: do not send it again), 'not-delivered'
 * (it has no trace of it: sending is safe) or 'unknown' (it cannot tell).
 */
export type EarlierAttempt = 'delivered' | 'not-delivered' | 'unknown';

export interface PrinterDriver {
  /** Which driver: the scheme table's name for it (schemes.ts PrinterAddress). */
  readonly kind: DriverKind;
  /** A description safe to log/show (no credentials). */
  readonly target: string;
  /**
   * Delivers one document; rejects with a clear Error on failure (the queue retries),
   * with an UncertainDeliveryError when the failure came after the printer may have
   * received the job. Must honour `signal` (time-out/abort).
   */
  print(doc: PrintDocument, signal: AbortSignal): Promise<void>;
  /**
   * Asked before the job is sent again after an attempt that may have reached the
   * printer (the worker died mid-delivery, or a time-out came after the data was sent).
   * Drivers whose printer cannot be asked (raw sockets, commands) leave it out: their
   * redeliveries are recorded on the job as possible duplicates.
   */
  checkEarlierAttempt?(doc: PrintDocument, signal: AbortSignal): Promise<EarlierAttempt>;
  /**
   * Asks the printer how it is: state, reasons, loaded media (status/). Never rejects:
   * a printer that cannot be reached is 'offline'. Must honour `signal`. Drivers whose
   * printer cannot tell (folder, command) leave it out: their status is 'unknown'.
   */
  status?(signal: AbortSignal): Promise<PrinterStatus>;
}

/** A failure that retrying cannot fix (e.g. format not supported): the queue fails the job at once. */
export class PermanentPrintError extends Error {
  override readonly name = 'PermanentPrintError';
}

/**
 * A failure after the printer may already have received the whole job (a time-out
 * or a lost connection after sending): the label may have printed. The job's next
 * attempt is then a redelivery, checked with the printer or flagged.
 */
export class UncertainDeliveryError extends Error {
  override readonly name = 'UncertainDeliveryError';
  constructor(message: string, options?: ErrorOptions) {
    super(`${message} (after the label was sent: the printer may have printed it)`, options);
  }
}

/** The Error to reject with when `signal` fires: its reason if that is an Error (e.g. a TimeoutError), else a generic one. */
export function abortError(signal: AbortSignal, what: string): Error {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? reason.message : 'aborted';
  return new Error(`${what}: ${why}`, { cause: reason });
}
