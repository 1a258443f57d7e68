/**
 * The label engine in a worker thread (render-pool.ts). Loading this module
 * loads fonts.ts, which in a worker registers nothing: the main thread
 * registered the bundled fonts for the whole process before the pool started
 * (registering them again from a thread races with drawing; see fonts.ts), and
 * passed its font-isolation verdict in workerData, so loading touches no canvas.
 */
import { fitImageToStock, ImageError } from '../printing/fit-image.js';
import type { LabelRecord, Template } from './design.js';
import { LabelFitError } from './layout.js';
import type { PngFault } from './png-check.js';
import { renderLabel } from './render.js';
import type { Stock } from './stock.js';

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
