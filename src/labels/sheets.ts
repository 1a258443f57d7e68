/**
 * Sheet products as data: office label sheets (A4, US Letter) that many labels
 * are laid out on, and one "label per page" product for label printers driven
 * through a desktop print dialog. Pure: geometry in millimetres, no drawing
 * (sheet-pdf.ts draws). Adding a product is one row here plus its name in the
 * spec's SheetProduct enum.
 *
 * Geometry (label size, rows x columns, pitch, first label's corner) is
 * LibreOffice's label database, extras/source/labels/labels.xml (its `measure`:
 * horizontal and vertical pitch, width, height, left, top, in 1/100 mm), where
 * the product is there; each row names its source and any other source that
 * disagrees. gLabels' templates (templates/avery-*-templates.xml, in points or
 * inches) are the cross-check.
 */

export const PAGE_SIZES = {
  a4: { widthMm: 210, heightMm: 297 },
  letter: { widthMm: 215.9, heightMm: 279.4 },
} as const;

const IN = 25.4;

export interface SheetProduct {
  /** The `sheet` request field's value. */
  name: string;
  title: string;
  /** 'a4', 'letter', or 'label': the page is one label (the template stock's paper, not its printable area). */
  page: keyof typeof PAGE_SIZES | 'label';
  /** Label size in mm (ignored for 'label' pages: the stock's size). */
  labelWidthMm: number;
  labelHeightMm: number;
  /** Corner radius of the die-cut label, mm (for outline guides). */
  cornerMm: number;
  columns: number;
  rows: number;
  /** Left edge of the first column and top edge of the first row, mm from the page's corner. */
  leftMm: number;
  topMm: number;
  /** Distance from one label's left (top) edge to the next one's. */
  pitchXMm: number;
  pitchYMm: number;
}

/** A label's place on a page, mm from the page's top-left corner. */
export interface Cell {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface SheetGeometry {
  pageWidthMm: number;
  pageHeightMm: number;
  cornerMm: number;
  /** Cells in reading order (left to right, top to bottom): position N is cells[N - 1]. */
  cells: Cell[];
}

type Row = [name: string, title: string, page: SheetProduct['page'], label: [w: number, h: number, corner: number], grid: [cols: number, rows: number], pitch: [x: number, y: number], origin: [left: number, top: number]];

const ROWS: Row[] = [
  // LibreOffice "Avery A4" L7160: 6604;3810;6350;3810;720;1515;3;7 (gLabels 7160: the same within 0.05 mm).
  ['avery-l7160', 'Avery L7160, 21 per A4 sheet, 63.5 × 38.1 mm', 'a4', [63.5, 38.1, 1.5], [3, 7], [66.04, 38.1], [7.2, 15.15]],
  // LibreOffice L7163: 10160;3810;9906;3810;467;1515;2;7 (gLabels 7163: the same within 0.1 mm).
  ['avery-l7163', 'Avery L7163, 14 per A4 sheet, 99.1 × 38.1 mm', 'a4', [99.06, 38.1, 1.5], [2, 7], [101.6, 38.1], [4.67, 15.15]],
  // LibreOffice L7651: 4064;2117;3810;2117;467;1090;5;13 (gLabels 8651 = L7651: top 10.90 mm too, rows 21.20 mm).
  ['avery-l7651', 'Avery L7651, 65 per A4 sheet, 38.1 × 21.2 mm', 'a4', [38.1, 21.17, 1.5], [5, 13], [40.64, 21.17], [4.67, 10.9]],
  // LibreOffice L7656 ("35 mm Slide"): 5067;1270;4600;1111;600;1595;4;21; Avery J8656 has the same grid there.
  ['avery-l7656', 'Avery L7656, 84 per A4 sheet, 46 × 11.1 mm', 'a4', [46, 11.11, 1], [4, 21], [50.67, 12.7], [6, 15.95]],
  // LibreOffice "Avery Letter Size" 5160: 6985;2540;6668;2540;478;1270;3;10 (gLabels: left 0.15625 in, pitch 2.78125 in).
  ['avery-5160', 'Avery 5160, 30 per Letter sheet, 2 5/8 × 1 in', 'letter', [2.625 * IN, 1 * IN, 0.0625 * IN], [3, 10], [2.75 * IN, 1 * IN], [0.1875 * IN, 0.5 * IN]],
  // LibreOffice 5163: 10636;5080;10160;5080;396;1270;2;5 (gLabels: left 0.1625 in).
  ['avery-5163', 'Avery 5163, 10 per Letter sheet, 4 × 2 in', 'letter', [4 * IN, 2 * IN, 0.0625 * IN], [2, 5], [4.1875 * IN, 2 * IN], [0.15625 * IN, 0.5 * IN]],
  // LibreOffice 5167: 5240;1270;4445;1270;714;1270;4;20 (gLabels 5167: the same in inches, used here).
  ['avery-5167', 'Avery 5167, 80 per Letter sheet, 1 3/4 × 1/2 in', 'letter', [1.75 * IN, 0.5 * IN, 0.0625 * IN], [4, 20], [2.0625 * IN, 0.5 * IN], [0.28125 * IN, 0.5 * IN]],
  // Not in LibreOffice's or gLabels' database: 0.625 in margins on all four sides, 2.625 in horizontal and
  // 31/12 in (2.5833) vertical pitch, as measured from the label rectangles of Avery's own template by a
  // public label tool; the margins come out symmetric, as on the sheet. The corner radius (1/8 in) is
  // not in any source at hand; it only rounds the cut guides.
  ['avery-22806', 'Avery 22806, 12 per Letter sheet, 2 × 2 in squares', 'letter', [2 * IN, 2 * IN, 0.125 * IN], [3, 4], [2.625 * IN, (31 / 12) * IN], [0.625 * IN, 0.625 * IN]],
  // LibreOffice "Herma A4" 4226 (SuperPrint, no gaps): left 8.48 mm, top 13.06 mm; gLabels has the same grid as Herma 4607 (48.3 x 16.9 mm).
  ['herma-4226', 'Herma 4226, 64 per A4 sheet, 48.3 × 16.9 mm', 'a4', [48.26, 16.93, 0], [4, 16], [48.26, 16.93], [8.48, 13.06]],
  ['label-per-page', 'One label per page, the size of the template’s stock (label printers through a print dialog)', 'label', [0, 0, 0], [1, 1], [0, 0], [0, 0]],
];

export const SHEET_PRODUCTS: readonly SheetProduct[] = ROWS.map(([name, title, page, [w, h, corner], [columns, rows], [px, py], [left, top]]) =>
  Object.freeze({
    name,
    title,
    page,
    labelWidthMm: w,
    labelHeightMm: h,
    cornerMm: corner,
    columns,
    rows,
    leftMm: left,
    topMm: top,
    pitchXMm: px,
    pitchYMm: py,
  }),
);

export const SHEET_PRODUCT_NAMES: readonly string[] = SHEET_PRODUCTS.map((p) => p.name);

export function findSheetProduct(name: string): SheetProduct | undefined {
  return SHEET_PRODUCTS.find((p) => p.name === name);
}

/**
 * Where the labels go. `labelMm` is the size of one label when the page is
 * the label ('label-per-page': the template stock's paper, as the PNG is turned).
 */
export function sheetGeometry(product: SheetProduct, labelMm?: { width: number; height: number }): SheetGeometry {
  if (product.page === 'label') {
    if (!labelMm) throw new RangeError(`${product.name} needs the label's size`);
    return { pageWidthMm: labelMm.width, pageHeightMm: labelMm.height, cornerMm: 0, cells: [{ x: 0, y: 0, width: labelMm.width, height: labelMm.height }] };
  }
  const page = PAGE_SIZES[product.page];
  const cells: Cell[] = [];
  for (let r = 0; r < product.rows; r++) {
    for (let c = 0; c < product.columns; c++) {
      cells.push({ x: product.leftMm + c * product.pitchXMm, y: product.topMm + r * product.pitchYMm, width: product.labelWidthMm, height: product.labelHeightMm });
    }
  }
  return { pageWidthMm: page.widthMm, pageHeightMm: page.heightMm, cornerMm: product.cornerMm, cells };
}

/** Labels a product holds per page. */
export function labelsPerPage(product: SheetProduct): number {
  return product.columns * product.rows;
}
