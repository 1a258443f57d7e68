/**
 * The label engine in a worker thread (render-pool.ts). Loading this module
 * loads fonts.ts, which in a worker registers nothing: the main thread
 * registered the bundled fonts for the whole process before the pool started
 * (registering them again from a thread races with drawing; see fonts.ts), and
 * passed its font-isolation verdict in workerData, so loading touches no canvas.
 */
import { setPriority } from 'node:os';
import { fitImageToStock, ImageError } from './fit-image.js';
import type { LabelRecord, Template } from './design.js';
import { LabelFitError } from './layout.js';
import { osThreadId } from './os-thread.js';
import type { PngFault } from './png-check.js';
import { renderLabel } from './render.js';
import { scanCodes, type ScannedCode } from './scan-check.js';
import type { Stock } from './stock.js';
import { renderCalibrationPdf, renderSheetPdf, SheetTimeoutError, type SheetOptions, type SheetPdf } from './sheet-pdf.js';

/**
 * Render threads yield the CPU to the main thread (nice 10, Linux). There is one per
 * core, so while a 1000-label batch or sheet keeps them all drawing, the main thread
 * competed with them on equal terms and waited for a time slice before it could
 * answer anything: /healthz stalled for tens of ms a time on a 2-core machine. The
 * main thread wakes, answers and sleeps; it now gets the core at once, the renders
 * lose almost nothing. A thread's nice value is set by its own id (setpriority(2) with
 * PRIO_PROCESS acts on one thread on Linux; os-thread.ts); elsewhere (or where lowering
 * is refused) the thread keeps the process's priority.
 */
export const RENDER_THREAD_NICE = 10;
const tid = osThreadId();
try {
  if (tid !== undefined && tid !== process.pid) setPriority(tid, RENDER_THREAD_NICE);
} catch {
  /* lowering refused: the same priority as the main thread */
}

export interface RenderTask {
  record: LabelRecord;
  template: Template;
  footer?: string;
}

/** A label, or the one error a client can act on (a stock too small for the record's codes). */
export type RenderReply =
  | { png: Uint8Array; warnings: string[]; missingGlyphs: number[] }
  | { fitError: string };

export default function render({ record, template, footer }: RenderTask): RenderReply {
  try {
    const r = renderLabel(record, template, { footer });
    // An exact-size copy: a small Buffer is a view of a shared 8 KB pool, which would be cloned whole.
    return { png: new Uint8Array(r.png), warnings: r.warnings, missingGlyphs: r.missingGlyphs };
  } catch (err) {
    if (err instanceof LabelFitError) return { fitError: err.message };
    throw err;
  }
}

/** An uploaded PNG to fit to a stock (printImage, printHomeboxLabel): decoded here, off the event loop. */
export interface FitImageTask {
  png: Uint8Array;
  stock: Stock;
}

/** The fitted 1-bit PNG, or why the upload cannot be printed. */
export type FitImageReply =
  | { png: Uint8Array; sourceWidth: number; sourceHeight: number; width: number; height: number; rotated: boolean }
  | { imageError: string; fault: PngFault };

export async function fitImage({ png, stock }: FitImageTask): Promise<FitImageReply> {
  try {
    const f = await fitImageToStock(Buffer.from(png.buffer, png.byteOffset, png.byteLength), stock);
    return { ...f, png: new Uint8Array(f.png) };
  } catch (err) {
    if (err instanceof ImageError) return { imageError: err.message, fault: err.fault };
    throw err;
  }
}

export interface SheetTask {
  records: { record: LabelRecord; copies: number }[];
  opts: Omit<SheetOptions, 'yieldEvery'>;
  /** A calibration page (sheet-pdf.ts renderCalibrationPdf) instead of labels: `records` is empty. */
  calibration?: boolean;
}

/** A sheet (its PDF as bytes), or the errors a client can act on (a stock too small for a record's codes, a sheet past its time limit). */
export type SheetReply =
  | (Omit<SheetPdf, 'pdf'> & { pdf: Uint8Array })
  | { fitError: string }
  | { timeout: string };

/**
 * A whole sheet PDF on this thread (piscina's `name: 'sheet'`): one Cairo document
 * cannot be split across threads. It yields between labels (renderSheetPdf), so the
 * single-label renders queued on this thread are drawn in between, not after it.
 */
export async function sheet({ records, opts, calibration }: SheetTask): Promise<SheetReply> {
  try {
    const r = calibration ? renderCalibrationPdf(opts) : await renderSheetPdf(records, opts);
    return { ...r, pdf: new Uint8Array(r.pdf.buffer, r.pdf.byteOffset, r.pdf.byteLength) };
  } catch (err) {
    if (err instanceof LabelFitError) return { fitError: err.message };
    if (err instanceof SheetTimeoutError) return { timeout: err.message };
    throw err;
  }
}

/** A design's save-time scan check (scan-check.ts): sample labels drawn, damaged and read here, off the event loop. */
export interface ScanTask {
  template: Template;
  records: LabelRecord[];
  /** The design's code elements' indexes in order; null for a line design. */
  codeElements: number[] | null;
}

export type ScanReply = { codes: ScannedCode[] } | { fitError: string };

export async function scan({ template, records, codeElements }: ScanTask): Promise<ScanReply> {
  try {
    return { codes: await scanCodes(template, records, codeElements) };
  } catch (err) {
    if (err instanceof LabelFitError) return { fitError: err.message };
    throw err;
  }
}
