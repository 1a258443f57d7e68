/** The contract between the print queue and the printer drivers. */

export interface PrintDocument {
  /** 1-bit (or any) PNG at the printer's native dots. */
  png: Buffer;
  /** Canonical stock name (labels/stock.ts), e.g. 'brother-ql-62x29'. */
  template: string;
  /** Job name, e.g. 'item label: Cordless drill'. */
  title: string;
  /** Label fields for command placeholders: kind, id, name, assetId, url. */
  fields: Record<string, string>;
}

export interface PrinterDriver {
  readonly kind: 'directory' | 'ipp' | 'zpl' | 'brother-ql' | 'command';
  /** A description safe to log/show (no credentials). */
  readonly target: string;
  /** Delivers one document; rejects with a clear Error on failure (the queue retries). Must honour `signal` (time-out/abort). */
  print(doc: PrintDocument, signal: AbortSignal): Promise<void>;
}

/** A failure that retrying cannot fix (e.g. format not supported): the queue fails the job at once. */
export class PermanentPrintError extends Error {
  override readonly name = 'PermanentPrintError';
}

/** The Error to reject with when `signal` fires: its reason if that is an Error (e.g. a TimeoutError), else a generic one. */
export function abortError(signal: AbortSignal, what: string): Error {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? reason.message : 'aborted';
  return new Error(`${what}: ${why}`, { cause: reason });
}
