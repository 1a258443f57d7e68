/**
 * The element designer's geometry, without the page: millimetres to CSS pixels at true
 * size, the scale that fits a label on a narrow screen, moving and resizing a box inside
 * the printable area, and snapping its edges and centre to the area's edges and centre and
 * to the other elements' edges. Boxes are in mm from the printable area's top left corner
 * (the design's own coordinates), so nothing here knows about dots or dpi.
 */

/** CSS pixels per millimetre: CSS fixes 96 px to the inch. */
export const PX_PER_MM = 96 / 25.4;

/** A box in mm: its top left corner and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The printable area in mm. */
export interface Area {
  width: number;
  height: number;
}

/** Keyboard steps: an arrow moves 0.5 mm, with Shift 5 mm. */
export const STEP_MM = 0.5;
export const BIG_STEP_MM = 5;
/** The smallest box a resize leaves. */
export const MIN_SIZE_MM = 1;
/** How near (in mm) an edge must come to a guide to snap to it. */
export const SNAP_MM = 1;

/** The scale (at most 1: true size) at which a label `widthMm` wide fits in `availablePx`. */
export function fitScale(widthMm: number, availablePx: number): number {
  const px = widthMm * PX_PER_MM;
  if (!(px > 0) || !(availablePx > 0)) return 1;
  return Math.min(1, availablePx / px);
}

/** A scale as people say it: "true size" or "shown at 64 %". */
export function scaleInWords(scale: number): string {
  return scale >= 0.995 ? 'true size' : `shown at ${Math.round(scale * 100)} % of true size`;
}

/** To 0.1 mm, without floating-point crumbs (2.6000000000000001). */
export const tenth = (v: number): number => Math.round(v * 10) / 10;

const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), Math.max(lo, hi));

/** The box moved by (dx, dy) mm, kept inside the area. */
export function moveBox(box: Box, dx: number, dy: number, area: Area): Box {
  return { ...box, x: tenth(clamp(box.x + dx, 0, area.width - box.width)), y: tenth(clamp(box.y + dy, 0, area.height - box.height)) };
}

/** The box with its right and bottom edges moved by (dw, dh) mm: at least MIN_SIZE_MM, inside the area. */
export function resizeBox(box: Box, dw: number, dh: number, area: Area): Box {
  return { ...box, width: tenth(clamp(box.width + dw, MIN_SIZE_MM, area.width - box.x)), height: tenth(clamp(box.height + dh, MIN_SIZE_MM, area.height - box.y)) };
}

/** A line a box snapped to, for drawing: vertical (`x`) or horizontal (`y`) at `at` mm. */
export interface Guide {
  axis: 'x' | 'y';
  at: number;
}

/** The lines a box may snap to on each axis: the area's edges and centre, the other boxes' edges and centres. */
export function guidesFor(area: Area, others: readonly Box[]): { x: number[]; y: number[] } {
  const x = [0, area.width / 2, area.width];
  const y = [0, area.height / 2, area.height];
  for (const o of others) {
    x.push(o.x, o.x + o.width / 2, o.x + o.width);
    y.push(o.y, o.y + o.height / 2, o.y + o.height);
  }
  return { x, y };
}

/**
 * The nearest shift (within `reach`) that puts one of `edges` on one of `lines`,
 * or null when none is near enough.
 */
function nearestShift(edges: readonly number[], lines: readonly number[], reach: number): { shift: number; at: number } | null {
  let best: { shift: number; at: number } | null = null;
  for (const e of edges) {
    for (const l of lines) {
      const shift = l - e;
      if (Math.abs(shift) <= reach && (!best || Math.abs(shift) < Math.abs(best.shift))) best = { shift, at: l };
    }
  }
  return best;
}

/**
 * A moved box snapped: on each axis, the edge or centre nearest a guide (within `reach` mm)
 * is put on it. Returns the box and the guides it snapped to.
 */
export function snapMove(box: Box, area: Area, others: readonly Box[], reach = SNAP_MM): { box: Box; guides: Guide[] } {
  const lines = guidesFor(area, others);
  const sx = nearestShift([box.x, box.x + box.width / 2, box.x + box.width], lines.x, reach);
  const sy = nearestShift([box.y, box.y + box.height / 2, box.y + box.height], lines.y, reach);
  const snapped = moveBox(box, sx?.shift ?? 0, sy?.shift ?? 0, area);
  const guides: Guide[] = [];
  if (sx) guides.push({ axis: 'x', at: tenth(sx.at) });
  if (sy) guides.push({ axis: 'y', at: tenth(sy.at) });
  return { box: snapped, guides };
}

/**
 * A resized box snapped: its right and bottom edges (the ones a resize moves) go onto
 * a guide within `reach` mm.
 */
export function snapResize(box: Box, area: Area, others: readonly Box[], reach = SNAP_MM): { box: Box; guides: Guide[] } {
  const lines = guidesFor(area, others);
  const sx = nearestShift([box.x + box.width], lines.x, reach);
  const sy = nearestShift([box.y + box.height], lines.y, reach);
  const snapped = resizeBox(box, sx?.shift ?? 0, sy?.shift ?? 0, area);
  const guides: Guide[] = [];
  if (sx) guides.push({ axis: 'x', at: tenth(sx.at) });
  if (sy) guides.push({ axis: 'y', at: tenth(sy.at) });
  return { box: snapped, guides };
}

/**
 * What an arrow key does to a box: Arrow moves by STEP_MM, Shift+Arrow by BIG_STEP_MM,
 * and with Alt the same keys resize (right and bottom edges). Null for any other key.
 */
export function keyAction(key: string, shift: boolean, alt: boolean): { kind: 'move' | 'resize'; dx: number; dy: number } | null {
  const step = shift ? BIG_STEP_MM : STEP_MM;
  const d = ({ ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] } as Record<string, [number, number]>)[key];
  if (!d) return null;
  return { kind: alt ? 'resize' : 'move', dx: d[0], dy: d[1] };
}

/** A pointer's movement in CSS px at `scale` as mm, to 0.1 mm. */
export function pxToMm(px: number, scale: number): number {
  return tenth(px / (PX_PER_MM * scale));
}
