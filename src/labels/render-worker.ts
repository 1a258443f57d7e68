/**
 * The label engine in a worker thread (render-pool.ts). Loading this module
 * loads fonts.ts, which in a worker registers nothing: the main thread
 * registered the bundled fonts for the whole process before the pool started
 * (registering them again from a thread races with drawing; see fonts.ts), and
 * passed its font-isolation verdict in workerData, so loading touches no canvas.
 */
import type { LabelRecord, Template } from './design.js';
import { LabelFitError } from './layout.js';
import { renderLabel } from './render.js';

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
