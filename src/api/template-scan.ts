/**
 * The scan check of a saved design (the spec's ScanCheck): its codes drawn on a sample
 * record of each kind, damaged as the robustness suite damages them and read back
 * (src/labels/scan-check.ts), on a render thread: seconds of CPU that must not hold
 * the event loop. Run once per save.
 */
import { printsRed, type LabelRecord, type Renderer, type Template } from '../labels/index.js';
import type { ScanCheck, StoredDesign } from './template-design.js';

export async function scanCheck(renderer: Pick<Renderer, 'scan'>, template: Template, records: LabelRecord[], design: StoredDesign, now: Date): Promise<ScanCheck> {
  const codeElements = design.elements ? design.elements.flatMap((el, i) => (el.type === 'code' ? [i] : [])) : null;
  const scanned = await renderer.scan(template, records, codeElements);
  const red = printsRed(template.stock);
  const codes = scanned.map((c) => {
    const failed = c.damages.filter((d) => !d.decoded).map((d) => d.damage);
    if (failed.length === 0) return c;
    const el = c.element >= 0 ? design.elements?.[c.element] : undefined;
    const inRed = red && (el ? el.type === 'code' && el.colour === 'red' : design.codeColour === 'red');
    const advice = inRed
      ? 'it is printed in red, which a camera sees lighter than black: give it a larger box (a larger module) or print it black'
      : 'give it a larger box (a larger module) or carry less data';
    return { ...c, reason: `not read after ${failed.join(', ')}: ${advice}` };
  });
  return { passed: codes.every((c) => c.damages.every((d) => d.decoded)), checkedAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), codes };
}
