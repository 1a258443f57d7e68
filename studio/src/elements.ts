/**
 * The element designer's model: a design as elements on a stock, each with a box in mm
 * on the printable area, as the designer edits it, and the names people see for them
 * ("Title", "Code", "Text 3"). Pure: no page, so the undo history can hold it as it is.
 */
import type { Box } from './canvas-math.js';

export type ElementType = 'text' | 'code' | 'image' | 'line' | 'frame';
export type Symbology = 'qr' | 'datamatrix' | 'code128';
export type Align = 'start' | 'centre' | 'end';
export type Weight = 'regular' | 'bold';
export type Colour = 'black' | 'red';
/** Quarter turns clockwise inside the box (the box does not turn). */
export type Rotation = 0 | 1 | 2 | 3;

export interface DesignElement {
  /** The designer's own key for the element (not sent). */
  key: string;
  /** What people call it: the live region and the form say it. */
  name: string;
  type: ElementType;
  box: Box;
  /** Text: fixed text and placeholders ({name}, {path}, a custom field). */
  text?: string;
  pt?: { min: number; max: number };
  weight?: Weight;
  /** Most lines the text wraps onto (the service's default: 1). */
  lines?: number;
  align?: Align;
  rotation?: Rotation;
  colour?: Colour;
  /** Code: its symbology and what it carries (placeholders allowed). */
  symbology?: Symbology;
  data?: string;
  /** Line and frame: thickness in mm. */
  thicknessMm?: number;
}

export interface ElementDesign {
  stock: string;
  elements: DesignElement[];
  /** The design's picture (base64 PNG or SVG, or the saved 1-bit PNG), drawn in its image elements. */
  logo?: { image: string; heightMm: number };
}

/** A text element's size range where its design gives none (the spec's TextElement.pt default). */
export const TEXT_PT_DEFAULT = { min: 7, max: 36 } as const;

export const TYPE_WORDS: Record<ElementType, string> = { text: 'Text', code: 'Code', image: 'Image', line: 'Line', frame: 'Frame' };

/** A name not yet used in the design: the first text is the Title, others are numbered. */
export function freshName(design: ElementDesign, type: ElementType): string {
  const taken = new Set(design.elements.map((e) => e.name));
  if (type === 'text' && !taken.has('Title')) return 'Title';
  const base = TYPE_WORDS[type];
  if (!taken.has(base) && type !== 'text') return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} ${n}`)) return `${base} ${n}`;
}

let counter = 0;
export const freshKey = (): string => `e${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A new element of `type`, placed at the top left of the free space, sized for the area. */
export function newElement(design: ElementDesign, type: ElementType, area: { width: number; height: number }): DesignElement {
  const name = freshName(design, type);
  const side = Math.min(area.height, area.width) * 0.6;
  const base = { key: freshKey(), name, type, rotation: 0 as Rotation, colour: 'black' as Colour };
  switch (type) {
    case 'text':
      return { ...base, box: { x: 2, y: 2, width: Math.max(5, Math.round(area.width / 2)), height: Math.max(3, Math.round(area.height / 4)) }, text: name === 'Title' ? '{name}' : 'Text', pt: { min: 6, max: 24 }, lines: 1, weight: name === 'Title' ? 'bold' : 'regular', align: 'start' };
    case 'code': {
      // As large as the area allows, at its right edge: a URL's QR code needs most of a small label's height to keep its module and quiet zone.
      const codeSide = Math.floor(Math.min(area.height, area.width) * 10) / 10;
      return { ...base, box: { x: Math.max(0, Math.floor((area.width - codeSide) * 10) / 10), y: 0, width: codeSide, height: codeSide }, symbology: 'qr', data: '{url}' };
    }
    case 'image':
      return { ...base, box: { x: 2, y: 2, width: Math.round(side / 2), height: Math.round(side / 2) } };
    case 'line':
      return { ...base, box: { x: 2, y: Math.round(area.height / 2), width: Math.round(area.width - 4), height: 1 }, thicknessMm: 0.3 };
    case 'frame':
      return { ...base, box: { x: 0, y: 0, width: area.width, height: area.height }, thicknessMm: 0.3 };
  }
}

/** "Title moved to 4 mm, 2 mm" and "Title resized to 30 × 8 mm". */
export function movedWords(e: DesignElement, kind: 'move' | 'resize'): string {
  return kind === 'move' ? `${e.name} moved to ${e.box.x} mm, ${e.box.y} mm` : `${e.name} resized to ${e.box.width} × ${e.box.height} mm`;
}

/** What a box on the canvas is called by a screen reader. */
export function boxLabel(e: DesignElement): string {
  const what = e.type === 'text' ? `text ${e.text ?? ''}` : e.type === 'code' ? `${e.symbology ?? 'qr'} code` : TYPE_WORDS[e.type].toLowerCase();
  return `${e.name}, ${what}, at ${e.box.x} mm, ${e.box.y} mm, ${e.box.width} × ${e.box.height} mm`;
}
