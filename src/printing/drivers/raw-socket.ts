/**
 * AppSocket / JetDirect (raw TCP, usually port 9100): connect, write the job,
 * half-close, and wait until the printer closes its side. Waiting for the
 * printer's EOF is what CUPS's socket backend does by default (waiteof=true):
 * it is the only sign that the printer read the whole job rather than our
 * kernel buffering it. A printer that never closes therefore times out.
 *
 * The protocol has no job ids and no way to ask what was printed, so a failure
 * after any byte left us (a time-out, a reset, a printer that takes the job and
 * then hangs) is an UncertainDeliveryError: the label may have printed, and the
 * retry is recorded on the job as a possible duplicate. A failure to connect is
 * certain: nothing was sent.
 */
import { connect } from 'node:net';
import { abortError, UncertainDeliveryError } from './types.js';

export interface RawSocketOptions {
  /** Wait for the printer to close the connection (default true, like CUPS). */
  waitEof?: boolean;
}

/** `who`: how errors name the printer (the driver's target), so a job's error can name it by its name instead (printer-name.ts). */
export function sendRaw(host: string, port: number, data: Buffer, signal: AbortSignal, opts: RawSocketOptions = {}, who = `printer ${host}:${port}`): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal, `printing to ${who}`));
  return new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port });
    let done = false;
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      const sent = socket.bytesWritten > 0;
      socket.destroy();
      if (!err) resolve();
      else reject(sent ? new UncertainDeliveryError(err.message, { cause: err }) : err);
    };
    const onAbort = (): void => finish(abortError(signal, `printing to ${who}`));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (e: NodeJS.ErrnoException) => finish(new Error(`${who}: ${e.code ?? e.message}`, { cause: e })));
    // Printers may answer (status bytes); read and drop them so they cannot block us.
    socket.on('data', () => {});
    socket.on('close', () => (socket.writableFinished ? finish() : finish(new Error(`${who} closed the connection before the job was sent`))));
    socket.once('connect', () => {
      socket.end(data, () => {
        if (opts.waitEof === false) finish();
      });
    });
  });
}
