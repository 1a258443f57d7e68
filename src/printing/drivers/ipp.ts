/**
 * IPP/IPP Everywhere printers and CUPS queues (ipp://host:631/printers/NAME).
 * Hand-written over node:http(s) instead of the `ipp` npm package: that one
 * is unmaintained, targets very old Node, and a client that sends two
 * operations needs little more than ipp-codec.ts.
 *
 * Flow: Get-Printer-Attributes once per driver (document-format-supported),
 * then Print-Job with image/png when offered, else PWG raster (which every
 * IPP Everywhere printer must accept), else a PermanentPrintError. `media` is
 * never sent: printers reject media they do not list, and label printers
 * know what is loaded.
 *
 * Exactly once: the job-name ends with the print job's id in brackets
 * (`asset label: 000-001 [3f2b8c1e-...]`). Printers assign their own job-uuid
 * (ippeveprinter ignores a client's), but they keep and list the job-name, so
 * before a job is sent again after an attempt that may have reached the printer,
 * Get-Jobs asks whether the printer already has it.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { findStock } from '../../labels/stock.js';
import { decodeMonoPng, type MonoBitmap } from '../../labels/index.js';
import { decodeResponse, encodeRequest, isPermanentStatus, isSuccess, JOB_STATE, OP, statusName, TAG, type IppResponse, type IppValue, type OutAttribute } from './ipp-codec.js';
import { offlineStatus, unknownStatus } from '../status/compose.js';
import { IPP_STATUS_ATTRIBUTES, ippPrinterStatus } from '../status/ipp.js';
import type { PrinterStatus } from '../status/types.js';
import { encodePwgRaster, type PwgType } from './pwg-raster.js';
import { abortError, PermanentPrintError, UncertainDeliveryError, type EarlierAttempt, type PrintDocument, type PrinterDriver } from './types.js';

export interface IppOptions {
  /** Verify the TLS certificate of ipps:// printers (default true; most printers ship self-signed ones). */
  rejectUnauthorized?: boolean;
  /** requesting-user-name when the URI has no user (default 'labelmaker'). */
  userName?: string;
}

interface PrinterCaps {
  formats: string[];
  pwgResolutions: number[]; // dpi, x = y only
  pwgTypes: string[];
}

const MAX_RESPONSE = 4 * 1024 * 1024;
/** Room left for the title in a job-name, so the id survives printers that keep only the first 127 bytes. */
const TITLE_BYTES = 80;

/** The job-name we send: the title, then the print job's id in brackets (what checkEarlierAttempt looks for). */
export function ippJobName(doc: Pick<PrintDocument, 'jobId' | 'title'>): string {
  return `${truncateUtf8(doc.title || 'label', TITLE_BYTES)} [${doc.jobId}]`;
}

export class IppDriver implements PrinterDriver {
  readonly kind = 'ipp' as const;
  readonly target: string;
  private readonly endpoint: URL;
  private readonly printerUri: string;
  private readonly auth: string | undefined;
  private readonly userName: string;
  private caps: Promise<PrinterCaps> | undefined;
  /** job-id the printer gave the last accepted job. */
  lastJobId: number | undefined;
  private requestId = 0;

  constructor(uri: string, private readonly opts: IppOptions = {}) {
    const u = new URL(uri);
    if (u.protocol !== 'ipp:' && u.protocol !== 'ipps:') throw new Error(`not an IPP URI: ${u.protocol}`);
    const user = decodeURIComponent(u.username);
    this.auth = user ? `Basic ${Buffer.from(`${user}:${decodeURIComponent(u.password)}`).toString('base64')}` : undefined;
    this.userName = user || opts.userName || 'labelmaker';
    u.username = '';
    u.password = '';
    if (!u.port) u.port = '631'; // ipp and ipps both default to 631 (RFC 8010, RFC 7472)
    this.printerUri = u.href;
    this.endpoint = new URL(u.href.replace(/^ipp/, 'http'));
    this.target = `IPP printer ${this.printerUri}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    const caps = await this.capabilities(signal);
    let format: string;
    let data: Buffer;
    if (caps.formats.includes('image/png')) {
      format = 'image/png';
      data = doc.png;
    } else if (caps.formats.includes('image/pwg-raster')) {
      format = 'image/pwg-raster';
      data = this.toPwg(doc, caps);
    } else {
      throw new PermanentPrintError(
        `${this.target} accepts neither image/png nor image/pwg-raster (it supports: ${caps.formats.join(', ') || 'nothing listed'})`,
      );
    }
    const res = await this.call(
      OP.printJob,
      [
        { tag: TAG.name, name: 'job-name', values: [ippJobName(doc)] },
        { tag: TAG.mimeMediaType, name: 'document-format', values: [format] },
      ],
      signal,
      data,
      true,
    ).catch((e: unknown) => {
      this.caps = undefined; // ask again next time: the printer may have changed (firmware, queue settings)
      throw e;
    });
    // Success means the printer accepted the job; its id is kept for logs (absent on some broken printers: not an error, retrying would print twice).
    const jobId = attr(res, TAG.job, 'job-id')[0];
    this.lastJobId = typeof jobId === 'number' ? jobId : undefined;
  }

  /**
   * Looks for this job among the printer's jobs (not completed, then completed) by
   * the id in its job-name. A job the printer holds, prints or printed is
   * 'delivered'; one it aborted was not printed; one canceled at the printer is
   * not sent again (someone meant it). A printer that keeps no completed jobs at
   * all, or cannot list jobs, cannot tell.
   */
  async checkEarlierAttempt(doc: PrintDocument, signal: AbortSignal): Promise<EarlierAttempt> {
    const marker = `[${doc.jobId}]`;
    let keepsHistory = false;
    for (const which of ['not-completed', 'completed']) {
      let res: IppResponse;
      try {
        res = await this.call(
          OP.getJobs,
          [
            { tag: TAG.keyword, name: 'which-jobs', values: [which] },
            { tag: TAG.keyword, name: 'requested-attributes', values: ['job-id', 'job-name', 'job-state'] },
          ],
          signal,
        );
      } catch (e) {
        if (e instanceof PermanentPrintError) return 'unknown'; // e.g. server-error-operation-not-supported
        throw e;
      }
      const jobs = res.groups.filter((g) => g.tag === TAG.job);
      if (which === 'completed' && jobs.length > 0) keepsHistory = true;
      for (const job of jobs) {
        const name = strings(job.attributes.get('job-name') ?? [])[0] ?? '';
        if (!name.includes(marker)) continue;
        const state = job.attributes.get('job-state')?.[0];
        const printerJob = job.attributes.get('job-id')?.[0];
        if (state === JOB_STATE.aborted) return 'not-delivered';
        if (state === JOB_STATE.canceled) {
          throw new PermanentPrintError(`${this.target}: job ${String(printerJob)} for this label was canceled at the printer; not sent again`);
        }
        if (typeof printerJob === 'number') this.lastJobId = printerJob;
        return 'delivered';
      }
    }
    return keepsHistory ? 'not-delivered' : 'unknown';
  }

  /**
   * printer-state, printer-state-reasons and the media loaded (status/ipp.ts). Not reachable
   * (refused, no route, no answer in time) is offline; an answer that is not a status
   * (HTTP or IPP error, e.g. authentication) is unknown.
   */
  async status(signal: AbortSignal): Promise<PrinterStatus> {
    let res: IppResponse;
    try {
      res = await this.call(OP.getPrinterAttributes, [{ tag: TAG.keyword, name: 'requested-attributes', values: IPP_STATUS_ATTRIBUTES }], signal);
    } catch (e) {
      const err = e as Error;
      const cause = err.cause as NodeJS.ErrnoException | undefined;
      const code = typeof cause?.code === 'string' ? cause.code : undefined;
      if (signal.aborted || code) return offlineStatus(`${this.printerUri} (${code ?? 'no answer in time'})`);
      return unknownStatus(err.message);
    }
    const printer = res.groups.find((g) => g.tag === TAG.printer);
    return ippPrinterStatus(printer?.attributes ?? new Map());
  }

  /** Printer capabilities, asked once; a failed request is asked again next time. */
  private capabilities(signal: AbortSignal): Promise<PrinterCaps> {
    if (!this.caps) {
      const caps = this.askCapabilities(signal);
      this.caps = caps;
      caps.catch(() => {
        if (this.caps === caps) this.caps = undefined;
      });
    }
    return this.caps;
  }

  private async askCapabilities(signal: AbortSignal): Promise<PrinterCaps> {
    const res = await this.call(
      OP.getPrinterAttributes,
      [
        {
          tag: TAG.keyword,
          name: 'requested-attributes',
          values: ['document-format-supported', 'pwg-raster-document-resolution-supported', 'pwg-raster-document-type-supported'],
        },
      ],
      signal,
    );
    const pwgResolutions: number[] = [];
    for (const v of attr(res, TAG.printer, 'pwg-raster-document-resolution-supported')) {
      if (isResolution(v) && v.x === v.y) pwgResolutions.push(v.units === 'dpi' ? v.x : Math.round(v.x * 2.54));
    }
    return {
      formats: strings(attr(res, TAG.printer, 'document-format-supported')),
      pwgResolutions,
      pwgTypes: strings(attr(res, TAG.printer, 'pwg-raster-document-type-supported')),
    };
  }

  private toPwg(doc: PrintDocument, caps: PrinterCaps): Buffer {
    let bitmap: MonoBitmap;
    try {
      bitmap = decodeMonoPng(doc.png);
    } catch (e) {
      throw new PermanentPrintError(`cannot print ${doc.stockName}: ${(e as Error).message}`, { cause: e });
    }
    const dpi = labelDpi(doc);
    // The label's own resolution, else the lowest integer multiple of it (dots are then replicated).
    const res = caps.pwgResolutions.length === 0 ? dpi : caps.pwgResolutions.filter((r) => r % dpi === 0).sort((a, b) => a - b)[0];
    if (res === undefined) {
      throw new PermanentPrintError(`${this.target} has no PWG raster resolution that fits a ${dpi} dpi label (it supports: ${caps.pwgResolutions.join(', ')} dpi)`);
    }
    const type: PwgType = caps.pwgTypes.includes('black_1') ? 'black_1' : 'sgray_8';
    return encodePwgRaster(bitmap, { type, dpi, scale: res / dpi });
  }

  /**
   * One IPP operation over HTTP POST; rejects on transport errors and non-successful IPP status.
   * `submitsJob`: a failure after the whole request went out is an UncertainDeliveryError.
   */
  private async call(op: number, attrs: OutAttribute[], signal: AbortSignal, data?: Buffer, submitsJob = false): Promise<IppResponse> {
    const id = ++this.requestId;
    const body = encodeRequest(
      op,
      id,
      [
        { tag: TAG.charset, name: 'attributes-charset', values: ['utf-8'] },
        { tag: TAG.naturalLanguage, name: 'attributes-natural-language', values: ['en'] },
        { tag: TAG.uri, name: 'printer-uri', values: [this.printerUri] },
        { tag: TAG.name, name: 'requesting-user-name', values: [this.userName] },
        ...attrs,
      ],
      data,
    );
    const raw = await this.post(body, signal, submitsJob);
    let res: IppResponse;
    try {
      res = decodeResponse(raw);
    } catch (e) {
      const message = `${this.target}: bad IPP response: ${(e as Error).message}`;
      throw submitsJob ? new UncertainDeliveryError(message, { cause: e }) : new Error(message, { cause: e });
    }
    if (!isSuccess(res.statusCode)) {
      const msg = strings(attr(res, TAG.operation, 'status-message'))[0];
      const text = `${this.target}: ${statusName(res.statusCode)} (0x${res.statusCode.toString(16).padStart(4, '0')})${msg ? `: ${msg}` : ''}`;
      throw isPermanentStatus(res.statusCode) ? new PermanentPrintError(text) : new Error(text);
    }
    return res;
  }

  private post(body: Buffer, signal: AbortSignal, submitsJob: boolean): Promise<Buffer> {
    if (signal.aborted) return Promise.reject(abortError(signal, this.target));
    const request = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Buffer>((resolve, reject) => {
      let sent = false; // the whole request left us: the printer may act on it even if its answer never comes
      const fail = (e: NodeJS.ErrnoException): void => {
        const err = signal.aborted ? abortError(signal, this.target) : new Error(`${this.target}: ${e.code ?? e.message}`, { cause: e });
        reject(submitsJob && sent ? new UncertainDeliveryError(err.message, { cause: err }) : err);
      };
      const headers: Record<string, string | number> = { 'Content-Type': 'application/ipp', 'Content-Length': body.length };
      if (this.auth) headers.Authorization = this.auth;
      const req = request(
        this.endpoint,
        { method: 'POST', headers, signal, agent: false, rejectUnauthorized: this.opts.rejectUnauthorized ?? true },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE) req.destroy(new Error('IPP response too large'));
            else chunks.push(c);
          });
          res.on('error', fail);
          res.on('end', () => {
            if (res.statusCode === 200) return resolve(Buffer.concat(chunks));
            const hint = res.statusCode === 426 ? ' (the server requires TLS: use ipps://)' : res.statusCode === 401 ? ' (authentication required)' : '';
            reject(new Error(`${this.target}: HTTP ${res.statusCode}${hint}`));
          });
        },
      );
      req.on('error', fail);
      req.on('finish', () => (sent = true));
      req.end(body);
    });
  }
}

function attr(res: IppResponse, groupTag: number, name: string): IppValue[] {
  for (const g of res.groups) if (g.tag === groupTag && g.attributes.has(name)) return g.attributes.get(name)!;
  return [];
}

function isResolution(v: IppValue): v is { x: number; y: number; units: 'dpi' | 'dpcm' } {
  return typeof v === 'object' && v !== null && 'units' in v && 'x' in v;
}

function strings(values: IppValue[]): string[] {
  return values.filter((v): v is string => typeof v === 'string');
}

/** The label's design resolution: from its stock, else 300 dpi. */
function labelDpi(doc: PrintDocument): number {
  return findStock(doc.stockName)?.dpi ?? 300;
}

function truncateUtf8(s: string, maxBytes: number): string {
  const chars = Array.from(s); // whole code points, never half a surrogate pair
  while (Buffer.byteLength(chars.join(''), 'utf8') > maxBytes) chars.pop();
  return chars.join('');
}
