/**
 * The element designer's model to and from the service's design (the spec's schema), the
 * sample records a design is previewed with, and the export file's shape.
 */
import type { DesignElement, ElementDesign } from './elements.js';
import { freshKey, freshName } from './elements.js';
import { placeInGrid, type ElementGrid, type GridArea } from '../../src/labels/grid.js';
import { elementsFromLines, type LineDesign } from './lines-to-elements.js';

/** A design element as the service takes it (the spec's TemplateElement): only its type's members. */
export type WireElement = Omit<DesignElement, 'key' | 'name'>;
export interface WireDesign {
  stock: string;
  elements: WireElement[];
  logo?: { image: string; heightMm: number };
}

/** Which members each type of element has (the spec's TextElement, CodeElement, ...). */
const MEMBERS: Record<DesignElement['type'], readonly (keyof WireElement)[]> = {
  text: ['type', 'box', 'text', 'pt', 'weight', 'align', 'lines', 'rotation', 'colour'],
  code: ['type', 'box', 'symbology', 'data', 'rotation', 'colour'],
  image: ['type', 'box', 'align', 'rotation', 'colour'],
  line: ['type', 'box', 'thicknessMm', 'colour'],
  frame: ['type', 'box', 'thicknessMm', 'colour'],
};

/** The designer's model as the service's design: each element with its type's members only; the designer's keys and names stay here. */
export function toWire(design: ElementDesign): WireDesign {
  const elements = design.elements.map((e) => Object.fromEntries(MEMBERS[e.type].filter((k) => e[k] !== undefined && e[k] !== '').map((k) => [k, e[k]])) as unknown as WireElement);
  return { stock: design.stock, elements, ...(design.logo && design.elements.some((e) => e.type === 'image') ? { logo: design.logo } : {}) };
}

/**
 * A design from the service (a saved template, an exported file) as the designer's model:
 * each element with a key and the name people see (the first text is the Title). A design in
 * rows and columns (`grid`, elements with a `cell`) opens with each cell's box in mm, placed
 * as the service places it on `area` (grid.ts, the same function): the designer places
 * freely, so saved again it is a design in boxes that looks the same. `fromGrid` says so.
 * A design of text lines opens the same way, from the rows and columns elementsFromLines
 * makes of it; `fromLines` says so.
 */
export function fromWire(
  saved: ({ stock: string; elements?: readonly object[] | null; grid?: ElementGrid | null } & Omit<LineDesign, 'stock'>),
  area: GridArea,
): ElementDesign & { fromGrid?: true; fromLines?: { notes: string[] } } {
  // A design of text lines opens as elements in rows and columns (lines-to-elements.ts).
  const converted = saved.elements ? undefined : elementsFromLines(saved, area);
  const wire = converted ?? { ...saved, elements: saved.elements ?? [] };
  const design: ElementDesign & { fromGrid?: true; fromLines?: { notes: string[] } } = { stock: wire.stock, elements: [], ...(converted ? { fromLines: { notes: converted.notes } } : {}) };
  const listed = wire.elements as readonly (Partial<WireElement> & { cell?: unknown })[];
  const inCells = listed.some((w) => w.cell);
  // A grid the service would refuse on this area (it never saves one) opens as default boxes, not an error.
  let placed: readonly Partial<WireElement>[] = listed;
  if (inCells) {
    try {
      placed = placeInGrid(listed as never[], wire.grid ?? undefined, area) as Partial<WireElement>[];
    } catch {
      placed = listed.map(({ cell: _cell, ...rest }) => rest);
    }
    if (!converted) design.fromGrid = true;
  }
  for (const w of placed) {
    const type = w.type ?? 'text';
    const e = { ...(w as WireElement), type, key: freshKey(), name: '', box: { x: 0, y: 0, width: 10, height: 5, ...w.box } };
    e.name = freshName(design, type);
    design.elements.push(e);
  }
  // A saved template's logo is the stored 1-bit PNG (`png`); sent back as it is, it prints the same.
  const image = wire.logo?.image ?? wire.logo?.png;
  if (wire.logo && image) design.logo = { image, heightMm: wire.logo.heightMm };
  return design;
}


/**
 * An exported file (exportLabelTemplate: a putLabelTemplate body) read back as a design,
 * or an error saying what is wrong with it; the service checks the rest when it is saved.
 */
export function parseImport(text: string): Parameters<typeof fromWire>[0] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error('it is not JSON.');
  }
  const d = data as { stock?: unknown; elements?: unknown; lines?: unknown };
  if (!d || typeof d !== 'object' || typeof d.stock !== 'string') throw new Error('it names no stock.');
  // A design of text lines (no elements) opens as elements too (fromWire).
  if (d.elements !== undefined && !Array.isArray(d.elements)) throw new Error('its elements are not a list.');
  if (d.lines !== undefined && !Array.isArray(d.lines)) throw new Error('its lines are not a list.');
  return d as Parameters<typeof fromWire>[0];
}

/**
 * A problem's detail in the designer's words: its JSON pointer (`/design/elements/2/box: ...`,
 * `/logo/image: ...`) becomes the element's name or "The image", as the person knows them.
 */
export function problemInWords(detail: string, names: readonly string[]): string {
  const m = /^(?:\/design)?(\/[A-Za-z]+(?:\/[A-Za-z0-9]+)*): (.*)$/s.exec(detail);
  if (!m) return detail;
  const [, pointer, rest] = m as unknown as [string, string, string];
  const element = /^\/elements\/(\d+)/.exec(pointer);
  if (element) return `${names[Number(element[1])] ?? `Element ${Number(element[1]) + 1}`}: ${rest}`;
  if (pointer.startsWith('/logo')) return `The image: ${rest}`;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** The service's scan check of a saved design (the spec's ScanCheck). */
export interface ScanCheckResult {
  passed: boolean;
  codes: { element: number; symbology: string; damages: { damage: string; decoded: boolean }[] }[];
}

const SYMBOLOGY_WORDS: Record<string, string> = { qr: 'QR code', datamatrix: 'DataMatrix', code128: 'Code 128 barcode' };

/** The scan check in words: what was checked, and each code that did not read after which damage. */
export function scanCheckWords(check: ScanCheckResult | undefined, names: readonly string[]): string {
  if (!check) return 'The service did not check its codes for scanning.';
  if (check.codes.length === 0) return 'It has no codes to check for scanning.';
  const damages = new Set(check.codes.flatMap((c) => c.damages.map((d) => d.damage)));
  if (check.passed) return `Scan check passed: ${check.codes.length === 1 ? 'its code' : `all ${check.codes.length} codes`} read after each of ${damages.size} kinds of print damage.`;
  const failed = check.codes
    .filter((c) => c.damages.some((d) => !d.decoded))
    .map((c) => `${names[c.element] ?? SYMBOLOGY_WORDS[c.symbology] ?? c.symbology} did not read after ${c.damages.filter((d) => !d.decoded).map((d) => d.damage).join(', ')}`);
  return `Scan check failed: ${failed.join('; ')}. Make the code's box larger, or move it away from the edge.`;
}
