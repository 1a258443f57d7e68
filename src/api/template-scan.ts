/**
 * The scan check of a saved design (the spec's ScanCheck): its codes drawn on a sample
 * record of each kind, damaged as the robustness suite damages them and read back
 * (src/labels/scan-check.ts), on a render thread: seconds of CPU that must not hold
 * the event loop. Run once per save.
 */
import type { LabelRecord, Renderer, Template } from '../labels/index.js';
import type { ScanCheck, StoredDesign } from './template-design.js';

export async function scanCheck(renderer: Pick<Renderer, 'scan'>, template: Template, records: LabelRecord[], design: StoredDesign, now: Date): Promise<ScanCheck> {
  const codeElements = design.elements ? design.elements.flatMap((el, i) => (el.type === 'code' ? [i] : [])) : null;
  const codes = await renderer.scan(template, records, codeElements);
  return { passed: codes.every((c) => c.damages.every((d) => d.decoded)), checkedAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), codes };
}
