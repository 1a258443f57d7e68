/**
 * A design of text lines (the spec's `lines`, `codes`, `codePosition`, `textPt`, `footer`) as
 * a design of elements in rows and columns, so the element designer opens every saved
 * template. The line layout (src/labels/layout.ts) decides sizes per record; elements have
 * fixed places, so this is the closest fixed arrangement: on a wide label the 2D code a
 * square column on its side as tall as the label, on a tall one a square row under the text;
 * the title a row twice as tall as each other line and the only one at the design's largest
 * size, a Code 128 along the bottom, the logo above the text. The service sizes the rows and
 * columns (src/labels/grid.ts), and checks the result when it is saved, as any design.
 */
import type { ElementGrid, GridArea, GridCell } from '../../src/labels/grid.js';
import type { WireElement } from './element-wire.js';

type Colour = 'black' | 'red';
/** A saved template's line design, as the service shows it (the spec's LabelTemplate). */
export interface LineDesign {
  stock: string;
  lines?: readonly { field: 'name' | 'path' | 'assetId' | 'description' | 'custom'; text?: string; colour?: Colour }[];
  codes?: readonly ('qr' | 'datamatrix' | 'code128')[];
  codePosition?: 'left' | 'right';
  codeColour?: Colour;
  textPt?: { min: number; max: number };
  footer?: string | null;
  logo?: { png?: string; image?: string; heightMm: number } | null;
}

/** The same design as the service takes elements in cells (putLabelTemplate's `elements` and `grid`). */
export interface GridDesign {
  stock: string;
  grid: ElementGrid;
  elements: (Omit<WireElement, 'box'> & { cell: GridCell })[];
  /** What the conversion had to change, in words (none: the same content in fixed places). */
  notes: string[];
  logo?: { png?: string; image?: string; heightMm: number } | null;
}

const PLACEHOLDER: Record<string, string> = { name: '{name}', path: '{path}', assetId: '{assetId}', description: '{description}' };
/** The line designs' default text range (the service's DEFAULT_TEXT_PT). */
const DEFAULT_PT = { min: 7, max: 36 };
const tenth = (mm: number) => Math.floor(mm * 10) / 10;
/** The squares a record's URL needs with its quiet zone at the smallest stocks' module (about 180 and 144 dots at 300 dpi). */
const QR_MIN_MM = 16;
const DATAMATRIX_MIN_MM = 14;

export function elementsFromLines(d: LineDesign, area: GridArea): GridDesign {
  const pt = d.textPt ?? DEFAULT_PT;
  const codes = d.codes ?? ['qr'];
  const matrix = codes.find((c) => c !== 'code128');
  const bars = codes.includes('code128');
  const codeInk = d.codeColour === 'red' ? { colour: 'red' as const } : {};
  const texts = (d.lines ?? [{ field: 'name' }, { field: 'path' }]).map((l) => ({ text: l.field === 'custom' ? (l.text ?? '') : PLACEHOLDER[l.field]!, colour: l.colour })).filter((l) => l.text !== '');
  if (d.footer) texts.push({ text: d.footer, colour: undefined });

  // Square and tall labels stack the code under the text (as the line layout does); wide ones give it a square column on its side.
  const tall = area.height >= area.width * 0.8;
  const rows: string[] = [];
  const logoMm = d.logo ? tenth(Math.min(d.logo.heightMm, area.height / 3)) : 0;
  if (logoMm > 0) rows.push(`${logoMm}mm`);
  texts.forEach((_, i) => rows.push(i === 0 ? '2fr' : '1fr'));
  if (rows.length === 0) rows.push('1fr');
  const textRows = rows.length;
  const rowGapMm = 0.5;
  const barsMm = bars ? tenth(Math.min(10, area.height * 0.3)) : 0;
  const barsRoom = bars ? barsMm + rowGapMm : 0;
  // The code's square: half the label's long way, but at least what its data needs where the
  // label has that much room (leaving a line of text). A record's address needs about 16 mm as a
  // QR code with its quiet zone (the line layout borrows the unprinted paper for it, a box does
  // not), about 12.5 mm as a DataMatrix (14 mm keeps it read after print damage): where 16 mm do not fit, the code is a DataMatrix.
  const notes: string[] = [];
  let symbology = matrix;
  let side = 0;
  if (matrix) {
    const natural = tall ? Math.min(area.width, area.height * 0.5) : Math.min(area.height - barsRoom, area.width * 0.5);
    const room = tall ? Math.min(area.width, area.height - barsRoom - 4) : Math.min(area.height - barsRoom, area.width - 10);
    if (matrix === 'qr' && natural < QR_MIN_MM && room < QR_MIN_MM) {
      symbology = 'datamatrix';
      notes.push(`Its QR code is a DataMatrix here: this label leaves ${tenth(room)} mm square for the code, and a QR code of a record's address needs about ${QR_MIN_MM} mm.`);
    }
    side = tenth(Math.max(0, Math.min(room, Math.max(natural, symbology === 'qr' ? QR_MIN_MM : DATAMATRIX_MIN_MM))));
  }
  if (matrix && tall) rows.push(`${side}mm`);
  if (bars) rows.push(`${barsMm}mm`);
  const codeLeft = d.codePosition === 'left';
  const columns = matrix && !tall ? (codeLeft ? [`${side}mm`, '1fr'] : ['1fr', `${side}mm`]) : ['1fr'];
  const textColumn = matrix && !tall && codeLeft ? 2 : 1;

  const elements: GridDesign['elements'] = [];
  let row = 1;
  if (logoMm > 0) elements.push({ type: 'image', align: 'end', rotation: 0, cell: { row: row++, column: textColumn } });
  texts.forEach((t, i) => {
    const title = i === 0;
    elements.push({
      type: 'text', text: t.text, pt: title ? { ...pt } : { min: pt.min, max: Math.max(pt.min, Math.round(pt.max * 0.6)) }, weight: title ? 'bold' : 'regular', align: tall ? 'centre' : 'start', lines: title ? 2 : 1, rotation: 0,
      ...(t.colour === 'red' ? { colour: 'red' as const } : {}),
      cell: { row: row++, column: textColumn },
    });
  });
  const matrixCell = tall ? { row: textRows + 1, column: 1 } : { row: 1, column: codeLeft ? 1 : 2, ...(textRows > 1 ? { rowSpan: textRows } : {}) };
  if (symbology) elements.push({ type: 'code', symbology, data: '{url}', rotation: 0, ...codeInk, cell: matrixCell });
  if (bars) elements.push({ type: 'code', symbology: 'code128', data: '{assetDigits}', rotation: 0, ...codeInk, cell: { row: rows.length, column: 1, ...(columns.length > 1 ? { columnSpan: columns.length } : {}) } });
  return { stock: d.stock, grid: { rows, columns, rowGapMm, ...(matrix ? { columnGapMm: 1.5 } : {}) }, elements, notes, ...(d.logo ? { logo: d.logo } : {}) };
}
