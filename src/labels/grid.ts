/**
 * Rows and columns (the spec's ElementGrid and ElementCell): each element placed in a cell
 * gets the cell's box in mm. Pure arithmetic on a printable area in mm, with no stock or
 * canvas, so the service (elements.ts, on the stock) and the studio's designer (opening a
 * grid design) place cells by this one function.
 */

/** Rows and columns over the printable area (the spec's ElementGrid): tracks `12mm` or `2fr`, gaps in mm. */
export interface ElementGrid {
  rows: readonly string[];
  columns: readonly string[];
  rowGapMm?: number;
  columnGapMm?: number;
}
/** A place in the grid (the spec's ElementCell), counted from 1. */
export interface GridCell {
  row: number;
  column: number;
  rowSpan?: number;
  columnSpan?: number;
}

/** A grid that cannot be laid out on the stock, or a cell outside it; `pointer` says where in the design (/grid/columns, /elements/3/cell). */
export class GridError extends Error {
  constructor(message: string, readonly pointer: string) {
    super(message);
    this.name = 'GridError';
  }
}

/** The area a grid divides, in mm, and the stock's name for messages. */
export interface GridArea {
  width: number;
  height: number;
  name: string;
}

/** Each track's start and end in mm over `extent`: fixed tracks their size, the rest shared by their fr; GridError when fixed tracks and gaps need more. */
function trackEdges(tracks: readonly string[], gap: number, extent: number, what: 'rows' | 'columns', stockName: string): { start: number; end: number }[] {
  const sizes = tracks.map((t) => {
    const m = /^(\d+(?:\.\d+)?)(fr|mm)$/.exec(t);
    if (!m) throw new GridError(`${JSON.stringify(t)} is not a track size (12mm, 2fr)`, `/grid/${what}`);
    return { value: Number(m[1]), fr: m[2] === 'fr' };
  });
  const fixed = sizes.reduce((sum, s) => sum + (s.fr ? 0 : s.value), 0) + gap * (tracks.length - 1);
  if (fixed > extent + 0.05)
    throw new GridError(`the ${what}' fixed sizes and gaps need ${round(fixed)} mm, the printable area of ${stockName} has ${extent} mm`, `/grid/${what}`);
  const frs = sizes.reduce((sum, s) => sum + (s.fr ? s.value : 0), 0);
  const perFr = frs > 0 ? Math.max(0, extent - fixed) / frs : 0;
  let at = 0;
  return sizes.map((s) => {
    const start = at;
    const end = start + (s.fr ? s.value * perFr : s.value);
    at = end + gap;
    return { start, end };
  });
}
const round = (mm: number) => Math.round(mm * 100) / 100;

/**
 * The design's elements with a box each: an element placed in a grid cell gets its cell's box
 * in this area (its spans included), in mm to 0.01, inside the printable area; boxed ones are
 * unchanged. GridError for a cell outside the grid, a cell without a grid, or tracks that do not fit.
 */
export function placeInGrid<E extends { box?: MmBox; cell?: GridCell }>(elements: readonly E[], grid: ElementGrid | undefined, area: GridArea): (Omit<E, 'cell'> & { box: MmBox })[] {
  let edges: { rows: { start: number; end: number }[]; columns: { start: number; end: number }[] } | undefined;
  return elements.map((el, i) => {
    const { cell, ...rest } = el;
    if (!cell) {
      if (!el.box) throw new GridError('an element needs a box or a cell', `/elements/${i}`);
      return { ...rest, box: el.box };
    }
    if (!grid) throw new GridError('a cell places an element in the design\'s grid: the design has no grid', `/elements/${i}/cell`);
    if (!edges) {
      edges = { rows: trackEdges(grid.rows, grid.rowGapMm ?? 0, area.height, 'rows', area.name), columns: trackEdges(grid.columns, grid.columnGapMm ?? 0, area.width, 'columns', area.name) };
    }
    const lastRow = cell.row + (cell.rowSpan ?? 1) - 1;
    const lastColumn = cell.column + (cell.columnSpan ?? 1) - 1;
    if (lastRow > edges.rows.length || lastColumn > edges.columns.length)
      throw new GridError(`the cell (row ${cell.row}${cell.rowSpan ? ` to ${lastRow}` : ''}, column ${cell.column}${cell.columnSpan ? ` to ${lastColumn}` : ''}) is outside the grid of ${edges.rows.length} rows and ${edges.columns.length} columns`, `/elements/${i}/cell`);
    const [top, bottom] = [edges.rows[cell.row - 1]!.start, edges.rows[lastRow - 1]!.end];
    const [left, right] = [edges.columns[cell.column - 1]!.start, edges.columns[lastColumn - 1]!.end];
    // Down to 0.01 mm: a box never reaches past its cell, nor the last cell past the printable area.
    const down = (mm: number) => Math.floor(mm * 100 + 1e-6) / 100;
    const x = round(left);
    const y = round(top);
    return { ...rest, box: { x, y, width: Math.max(0.01, down(right - x)), height: Math.max(0.01, down(bottom - y)) } };
  }) as (Omit<E, 'cell'> & { box: MmBox })[];
}

/** A box in millimetres from the printable area's top-left corner. */
export interface MmBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
