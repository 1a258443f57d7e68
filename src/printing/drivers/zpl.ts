/**
 * Zebra ZPL, over raw TCP 9100 here (on a USB device: device.ts). The label is one
 * ^GFA graphic field in Z64 form (base64 of zlib-deflated bits + CRC): ~20x smaller
 * than ASCII hex, which matters on slow printer CPUs and serial links.
 */
import { deflateSync } from 'node:zlib';
import { decodeMonoPng, type MonoBitmap } from '../../labels/index.js';
import { readZebraStatus } from '../status/zebra.js';
import type { PrinterStatus } from '../status/types.js';
import { sendRaw, type RawSocketOptions } from './raw-socket.js';
import { PermanentPrintError, type PrintDocument, type PrinterDriver } from './types.js';

/** CRC-16/XMODEM (poly 0x1021, init 0), as Zebra specifies for Z64 data. */
export function crc16Xmodem(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) {
    crc ^= text.charCodeAt(i) << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The ZPL for one label: the bitmap (1 = black) at the origin, printed once.
 * `jobId` goes into a ^FX comment (never printed): raw TCP has no job names, and
 * it lets whoever reads the stream (a capture, a print server's log) tell jobs apart.
 */
export function encodeZpl(bitmap: MonoBitmap, jobId?: string): string {
  const total = bitmap.stride * bitmap.height;
  const b64 = deflateSync(bitmap.bits.subarray(0, total)).toString('base64');
  const crc = crc16Xmodem(b64).toString(16).toUpperCase().padStart(4, '0');
  // ^ and ~ start ZPL commands: keep them out of the comment.
  const comment = jobId ? `^FXlabelmaker job ${jobId.replace(/[\^~]/g, '')}` : '';
  return `^XA${comment}^PW${bitmap.width}^LL${bitmap.height}^FO0,0^GFA,${total},${total},${bitmap.stride},:Z64:${b64}:${crc}^FS^XZ`;
}

/** The bytes a Zebra gets for one document, whatever carries them (raw TCP here, a USB device in device.ts). */
export function zplJob(doc: PrintDocument): Buffer {
  let bitmap: MonoBitmap;
  try {
    bitmap = decodeMonoPng(doc.png);
  } catch (e) {
    throw new PermanentPrintError(`cannot print ${doc.stockName}: ${(e as Error).message}`, { cause: e });
  }
  return Buffer.from(encodeZpl(bitmap, doc.jobId), 'latin1');
}

export class ZplDriver implements PrinterDriver {
  readonly kind = 'zpl' as const;
  readonly target: string;
  /** Whether the printer has answered ~HS: a Zebra that did and falls silent is stopped, not unknown (status/zebra.ts). */
  private answeredHostStatus = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly opts: RawSocketOptions = {},
  ) {
    this.target = `ZPL printer at ${host}:${port}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    await sendRaw(this.host, this.port, zplJob(doc), signal, this.opts, this.target);
  }

  /** Host status (~HS) and errors (~HQES) over the raw port; see status/zebra.ts. */
  async status(signal: AbortSignal): Promise<PrinterStatus> {
    const { status, answeredHostStatus } = await readZebraStatus({ host: this.host, port: this.port }, signal, this.answeredHostStatus);
    if (answeredHostStatus) this.answeredHostStatus = true;
    return status;
  }
}
