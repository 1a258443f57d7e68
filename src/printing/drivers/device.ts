/**
 * A printer on a local character device, in its own language: a USB label printer
 * on Linux's usblp driver (/dev/usb/lp0), as brother_ql's "linux_kernel" backend
 * and CUPS's file: backend drive one. The language's encoder (brother-ql.ts, zpl.ts)
 * makes the bytes; this writes them.
 *
 * Nothing here ever blocks a thread: Node does file I/O on a small thread pool, and
 * a blocking open or write that never returns (a FIFO nobody reads, a printer that
 * stalls) would hold a pool thread for good, and with four of them every file
 * operation of the process. So the device is opened O_NONBLOCK and every step is
 * tried again after a short pause until it goes through or the signal fires:
 *   open   ENXIO (no reader on a FIFO; device gone), EBUSY (usblp is opened by one
 *          program at a time), EAGAIN: try again;
 *   write  short writes continue from where they stopped; EAGAIN: try again;
 *   drain  usblp returns from a non-blocking write before the printer took the data
 *          and cancels what is in flight on close; its source says to wait for the
 *          write path to come idle first, which a zero-length write reports (EAGAIN
 *          until it is). On a FIFO it returns at once.
 * A missing device or one we may not write fails at once, naming the path. Once any
 * byte was written a failure is an UncertainDeliveryError, as on a raw socket.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { abortError, PermanentPrintError, UncertainDeliveryError, type PrintDocument, type PrinterDriver } from './types.js';

/** Errors after which the same step may go through a moment later. */
const TRY_AGAIN = new Set(['EAGAIN', 'EWOULDBLOCK', 'EBUSY', 'ENXIO', 'EINTR']);
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 100;

/** Why an error that is not worth repeating stops the attempt, in words that say what to do. */
function why(path: string, e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return `${path} does not exist (ENOENT): is the printer on and plugged in? (ls /dev/usb/)`;
    case 'EACCES':
    case 'EPERM':
      return `may not write to ${path} (${e.code}): the service's user must be in the group that owns it (lp on most distributions)`;
    case 'ENODEV':
      return `${path} went away (ENODEV): the printer was unplugged or turned off`;
    case 'ENOSPC':
      return `${path} reports the printer out of paper (ENOSPC)`;
    default:
      return `${path}: ${e.code ?? e.message}`;
  }
}

/** Waits `ms`, less if `signal` fires first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Writes `data` to the device at `path` and waits until it took it (see above). `who`
 * names the printer in errors (the driver's target). Rejects when `signal` fires.
 */
export async function writeDevice(path: string, data: Buffer, signal: AbortSignal, who: string): Promise<void> {
  let written = 0;
  let pauseMs = FIRST_PAUSE_MS;
  let waitingFor = 'the device to open';
  /** Runs `step` until it goes through, pausing after each error worth repeating; rejects once the signal fires. */
  const repeat = async <T>(step: () => Promise<T>): Promise<T> => {
    for (;;) {
      if (signal.aborted) throw abortError(signal, `${who}: still waiting for ${waitingFor}`);
      try {
        const value = await step();
        pauseMs = FIRST_PAUSE_MS;
        return value;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (!code || !TRY_AGAIN.has(code)) throw new Error(`${who}: ${why(path, e as NodeJS.ErrnoException)}`, { cause: e });
        await pause(pauseMs, signal);
        pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
      }
    }
  };

  let handle: FileHandle | undefined;
  try {
    // No O_CREAT: a missing device is an error, never a new file in /dev.
    handle = await repeat(() => open(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY));
    const fd = handle;
    const kind = await fd.stat();
    if (!kind.isCharacterDevice() && !kind.isFIFO()) {
      throw new PermanentPrintError(`${who}: ${path} is not a device (a folder printer is file:///path without ?lang=)`);
    }
    waitingFor = 'the printer to take the label';
    while (written < data.length) {
      const { bytesWritten } = await repeat(() => fd.write(data, written, data.length - written));
      written += bytesWritten;
    }
    waitingFor = 'the printer to take the last of the label';
    await repeat(() => fd.write(data, 0, 0));
  } catch (err) {
    throw written > 0 ? new UncertainDeliveryError((err as Error).message, { cause: err }) : err;
  } finally {
    await handle?.close().catch(() => {});
  }
}

export class DeviceDriver implements PrinterDriver {
  readonly kind = 'device' as const;
  readonly target: string;

  /** `printer`: what it is (e.g. "Brother QL-820NWB"); `encode`: its language's bytes for a document. */
  constructor(
    private readonly path: string,
    printer: string,
    private readonly encode: (doc: PrintDocument) => Buffer,
  ) {
    this.target = `${printer} on ${path}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw abortError(signal, `printing to ${this.target}`);
    await writeDevice(this.path, this.encode(doc), signal, this.target);
  }
}
