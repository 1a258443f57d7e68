/**
 * The element designer's model to and from the service's design (the spec's schema), the
 * sample records a design is previewed with, and the export file's shape.
 */
import type { DesignElement, ElementDesign } from './elements.js';
import { freshKey, TYPE_WORDS } from './elements.js';

/** The records a design is previewed with besides the one shown: the hard cases for a layout. */
export const SAMPLES = {
  longest: { title: 'The longest name', record: { kind: 'item', name: 'Ersatzteile für Hochregallager Gang 14, Ebene 3, Fach 27: Schrauben, Muttern und Unterlegscheiben (rostfrei)', path: ['Zentrallager Nord', 'Halle B', 'Hochregal 14'], assetId: '000-001' } },
  rtl: { title: 'A right-to-left name (Hebrew)', record: { kind: 'location', name: 'מחסן ראשי – מדף 3', path: ['בית', 'מוסך'], assetId: null } },
  assetId: { title: 'A 12-digit asset id', record: { kind: 'asset', name: 'Cordless drill', path: ['Home', 'Garage', 'Shelf 3'], assetId: '123456789012' } },
} as const;
export type SampleChoice = 'record' | keyof typeof SAMPLES;

/** A design element as the service takes it. */
export type WireElement = Omit<DesignElement, 'key'>;
export interface WireDesign {
  stock: string;
  elements: WireElement[];
}

/** The designer's model as the service's design: the designer's keys stay here. */
export function toWire(design: ElementDesign): WireDesign {
  return { stock: design.stock, elements: design.elements.map(({ key: _key, ...rest }) => rest) };
}

/** The service's design (a saved template, or an imported file) as the designer's model, each element with a key and a name. */
export function fromWire(wire: { stock: string; elements?: readonly Partial<WireElement>[] }): ElementDesign {
  const seen = new Map<string, number>();
  const elements = (wire.elements ?? []).map((w): DesignElement => {
    const type = w.type ?? 'text';
    const base = w.name ?? (type === 'text' && !seen.has('text') ? 'Title' : TYPE_WORDS[type]);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    if (type === 'text') seen.set('text', 1);
    return { ...(w as WireElement), type, name: n > 1 ? `${base} ${n}` : base, key: freshKey(), box: { x: 0, y: 0, width: 10, height: 5, ...w.box } };
  });
  return { stock: wire.stock, elements };
}

/** The export file's name for a design name. */
export const exportFileName = (name: string): string => `${name.replace(/[^a-z0-9._-]+/gi, '-') || 'design'}.label.json`;

/** An exported file read back: its name and design, or an error saying what is wrong. */
export function parseImport(text: string): { name: string; design: WireDesign } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error('it is not JSON.');
  }
  const d = data as { name?: unknown; design?: { stock?: unknown; elements?: unknown } };
  if (!d || typeof d !== 'object' || !d.design || typeof d.design.stock !== 'string' || !Array.isArray(d.design.elements)) throw new Error('it has no design with a stock and elements.');
  return { name: typeof d.name === 'string' ? d.name : '', design: d.design as WireDesign };
}
