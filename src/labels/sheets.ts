/**
 * Sheet products as data: office label sheets (A4, US Letter) that many labels
 * are laid out on, and one "label per page" product for label printers driven
 * through a desktop print dialog. Pure: geometry in millimetres, no drawing
 * (sheet-pdf.ts draws). Adding a product is one row here plus its name in the
 * spec's SheetProduct enum.
 *
 * Sources of the geometry (label size, rows x columns, pitch, margins):
 * - Avery L7160, L7163, L7651: Avery's published template data (top margin
 *   15.15 / 15.15 / 10.7 mm, symmetric side margins); the same grid is in gLabels'
 *   templates/avery-iso-templates.xml (Avery 7160, 7163, 8651 = L7651), in points.
 * - Avery L7656 (46 x 11.1 mm, 4 x 21): vertical pitch 12.7 mm, top margin
 *   15.95 mm, horizontal pitch 49.6 mm with equal side margins.
 * - Avery 5160, 5163, 5167 (US Letter): 0.5 in top margin; side margins 3/16,
 *   5/32 and 9/32 in; horizontal pitch 2.75, 4.1875 and 2.0625 in (Avery's
 *   templates; 5160 as in many public label tools: marginTop 0.5, marginLeft 0.1875).
 * - Avery 22806 (2 x 2 in squares, 3 x 4): 0.625 in margins on all four sides,
 *   2.625 in horizontal and 31/12 in (2.5833) vertical pitch, as measured from
 *   the label rectangles of Avery's own template by a public label tool; the
 *   margins come out symmetric, as on the sheet. The corner radius (1/8 in) is
 *   not in any source at hand; it only rounds the cut guides.
 * - Herma 4226 (SuperPrint, 48.26 x 16.93 mm, 4 x 16, no gaps): left 8.48 mm,
 *   top 13.06 mm, from LibreOffice's label database (extras/source/labels/labels.xml,
 *   "Herma A4"); gLabels has the same grid as Herma 4607 (48.3 x 16.9 mm).
 * Where a side margin is given as "symmetric", it is computed from the page
 * width, so the columns are centred exactly as on the die-cut sheet.
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

type Row = [name: string, title: string, page: SheetProduct['page'], label: [w: number, h: number, corner: number], grid: [cols: number, rows: number], pitch: [x: number, y: number], origin: [left: number | 'centre', top: number]];

const ROWS: Row[] = [
  ['avery-l7160', 'Avery L7160, 21 per A4 sheet, 63.5 × 38.1 mm', 'a4', [63.5, 38.1, 1.5], [3, 7], [66.04, 38.1], ['centre', 15.15]],
  ['avery-l7163', 'Avery L7163, 14 per A4 sheet, 99.1 × 38.1 mm', 'a4', [99.1, 38.1, 1.5], [2, 7], [101.6, 38.1], ['centre', 15.15]],
  ['avery-l7651', 'Avery L7651, 65 per A4 sheet, 38.1 × 21.2 mm', 'a4', [38.1, 21.2, 1.5], [5, 13], [40.64, 21.2], ['centre', 10.7]],
  ['avery-l7656', 'Avery L7656, 84 per A4 sheet, 46 × 11.1 mm', 'a4', [46, 11.1, 1], [4, 21], [49.6, 12.7], ['centre', 15.95]],
  ['avery-5160', 'Avery 5160, 30 per Letter sheet, 2 5/8 × 1 in', 'letter', [2.625 * IN, 1 * IN, 0.0625 * IN], [3, 10], [2.75 * IN, 1 * IN], [0.1875 * IN, 0.5 * IN]],
  ['avery-5163', 'Avery 5163, 10 per Letter sheet, 4 × 2 in', 'letter', [4 * IN, 2 * IN, 0.0625 * IN], [2, 5], [4.1875 * IN, 2 * IN], [0.15625 * IN, 0.5 * IN]],
  ['avery-5167', 'Avery 5167, 80 per Letter sheet, 1 3/4 × 1/2 in', 'letter', [1.75 * IN, 0.5 * IN, 0.0625 * IN], [4, 20], [2.0625 * IN, 0.5 * IN], [0.28125 * IN, 0.5 * IN]],
  ['avery-22806', 'Avery 22806, 12 per Letter sheet, 2 × 2 in squares', 'letter', [2 * IN, 2 * IN, 0.125 * IN], [3, 4], [2.625 * IN, (31 / 12) * IN], [0.625 * IN, 0.625 * IN]],
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
    leftMm: left === 'centre' ? (PAGE_SIZES[page as 'a4'].widthMm - (columns - 1) * px - w) / 2 : left,
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
