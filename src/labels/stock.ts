/**
 * Label stock: the physical labels a printer is loaded with, as one table of
 * plain records (after brother_ql's labels.py). A stock's name is also the name
 * of its built-in template (templates.ts): `?template=brother-ql-62x29` means
 * "the standard design on Brother QL 62 × 29 mm stock". Rendered PNGs are
 * exactly the stock's printable dots; a label never grows past its stock.
 *
 * This is the one place stock facts live: adding a stock is one row here, its name
 * in the spec's Template description, and `npm run docs:stocks`, which writes the
 * stock table of docs/labels-and-templates.md from STOCKS (scripts/lib/stock-table.ts).
 */

/** Brother QL media as the printer's ESC i z command and raster placement need them. */
export interface BrotherQlMedia {
  /** Tape width and label length in mm as sent in ESC i z (length 0 on continuous tape). */
  widthMm: number;
  lengthMm: number;
  /** Blank dots between the right edge of the print head and the image (before mirroring: its left edge). */
  offsetRight: number;
}

export interface Stock {
  /** Canonical name; also the name of the stock's built-in template. */
  name: string;
  /** Other names people buy the same stock by (maker part numbers); each is a template name too. */
  aliases: readonly string[];
  title: string;
  /** Size of the label in mm: across the print head, and along the feed (null: continuous tape). */
  widthMm: number;
  lengthMm: number | null;
  /** Print head density. Module sizes and the smallest text size are computed from it. */
  dpi: 203 | 300 | 600;
  /** Printable dots across the print head: the PNG's width. */
  widthDots: number;
  /** Printable dots along the feed: the PNG's height; null on continuous tape (it follows the content). */
  lengthDots: number | null;
  /** Upper bound on the length; equals lengthDots on die-cut stock. */
  maxLengthDots: number;
  /** Shortest length drawn on continuous tape; equals lengthDots on die-cut stock. */
  minLengthDots: number;
  /**
   * How the design sits on the raster. 'landscape' and 'portrait': as the PNG
   * is. 'rotated': the design's width runs along the feed and it is turned 90°
   * clockwise into the raster (text reads top to bottom in the PNG, left to
   * right on the applied label): tall narrow stock fed narrow edge first, laid
   * out across its long side as P-touch Editor and DYMO Connect do, and the
   * DYMO 30332 square, whose 268 dots across the head (212 along the feed)
   * become the design's height.
   */
  orientation: 'landscape' | 'portrait' | 'rotated';
  /**
   * The 2D symbology of the standard design. QR on every stock: on the tiny ones a QR code
   * with 4-dot modules reads after every degradation of the print-and-scan check, where a
   * DataMatrix at 4 dots fails a half-resolution scan at some grid phases and zxing's
   * DataMatrix detector misses some speckle patterns at any size (measured 24 November;
   * `npm run robustness:speckle`). Where a QR code leaves no line for the title, its quiet
   * zone may end in the paper beyond the printable area (paperDots, layout.ts belowMargin);
   * where it still does not fit, the smaller DataMatrix takes over (LabelContent.code2d.smaller).
   * DataMatrix stays a template's and Grocy's choice.
   */
  code2d: 'qr' | 'datamatrix';
  /**
   * A sheet's cell (sheet-pdf.ts), printed by a page printer: no thermal print head to lose a
   * dot, so a sturdy barcode (CodeSpec.sturdy) takes whatever fits there, as any other does.
   */
  pagePrinter?: true;
  /** Media data for Brother QL raster printers (absent: not a Brother QL stock). */
  brotherQl?: BrotherQlMedia;
  /**
   * The inks it prints: ['black'], or ['black', 'red'] on a two-colour roll (Brother's
   * DK-22251), where a design may mark text or codes red (LabelDesign) and the label is
   * drawn as a black and a red plane. A Brother QL refuses a black-only job on that roll,
   * so every job on such a stock is sent in two-colour mode (printing/drivers/brother-ql.ts).
   */
  colours: readonly Colour[];
}

export type Colour = 'black' | 'red';

/** Longest label drawn on continuous tape: 2000 dots ≈ 169 mm at 300 dpi. */
export const CONTINUOUS_MAX_LENGTH_DOTS = 2000;

type Ql = [widthMm: number, lengthMm: number, offsetRight: number];
type Row = [
  name: string,
  aliases: string[],
  title: string,
  mm: [number, number | null],
  dpi: 203 | 300,
  dots: [number, number | null],
  orientation: Stock['orientation'],
  code2d: Stock['code2d'],
  ql?: Ql,
  colours?: Colour[],
];

// Brother QL: dots and offsets from brother_ql's labels.py (its "39x90" is 38 mm tape, hence 38x90;
// it sends 153 mm for 102x152). DYMO: printable areas of the LabelWriter's 300 dpi head (30252/30320
// as DYMO documents them; 30332/30336 with the same margins). Zebra: the full label at the head's dpi.
const ROWS: Row[] = [
  ['brother-ql-62x29', ['brother-dk-11209'], 'Brother QL 62 × 29 mm die-cut (DK-11209)', [62, 29], 300, [696, 271], 'landscape', 'qr', [62, 29, 12]],
  ['brother-ql-62x100', ['brother-dk-11202'], 'Brother QL 62 × 100 mm die-cut (DK-11202)', [62, 100], 300, [696, 1109], 'portrait', 'qr', [62, 100, 12]],
  ['brother-ql-62', ['brother-dk-22205'], 'Brother QL 62 mm continuous (DK-22205)', [62, null], 300, [696, null], 'landscape', 'qr', [62, 0, 12]],
  // The red/black roll shipped with the QL-800/810W/820NWB: printed in two-colour mode only (brother_ql labels.py "62red": 62 mm, offset 12).
  ['brother-ql-62-red', ['brother-dk-22251'], 'Brother QL 62 mm continuous red/black (DK-22251)', [62, null], 300, [696, null], 'landscape', 'qr', [62, 0, 12], ['black', 'red']],
  ['brother-ql-29', ['brother-dk-22210'], 'Brother QL 29 mm continuous (DK-22210)', [29, null], 300, [306, null], 'rotated', 'qr', [29, 0, 6]],
  ['brother-ql-29x90', ['brother-dk-11201'], 'Brother QL 29 × 90 mm die-cut (DK-11201)', [29, 90], 300, [306, 991], 'rotated', 'qr', [29, 90, 6]],
  ['brother-ql-38x90', ['brother-dk-11208'], 'Brother QL 38 × 90 mm die-cut (DK-11208)', [38, 90], 300, [413, 991], 'rotated', 'qr', [38, 90, 12]],
  ['brother-ql-17x54', ['brother-dk-11204'], 'Brother QL 17 × 54 mm die-cut (DK-11204)', [17, 54], 300, [165, 566], 'rotated', 'qr', [17, 54, 0]],
  ['brother-ql-17x87', ['brother-dk-11203'], 'Brother QL 17 × 87 mm die-cut (DK-11203)', [17, 87], 300, [165, 956], 'rotated', 'qr', [17, 87, 0]],
  ['brother-ql-23x23', ['brother-dk-11221'], 'Brother QL 23 × 23 mm die-cut (DK-11221)', [23, 23], 300, [202, 202], 'portrait', 'qr', [23, 23, 42]],
  ['brother-ql-39x48', [], 'Brother QL 39 × 48 mm die-cut', [39, 48], 300, [425, 495], 'portrait', 'qr', [39, 48, 6]],
  ['brother-ql-52x29', [], 'Brother QL 52 × 29 mm die-cut', [52, 29], 300, [578, 271], 'landscape', 'qr', [52, 29, 0]],
  ['brother-ql-102x51', ['brother-dk-11240'], 'Brother QL 102 × 51 mm die-cut (DK-11240)', [102, 51], 300, [1164, 526], 'landscape', 'qr', [102, 51, 12]],
  ['brother-ql-102x152', ['brother-dk-11241'], 'Brother QL 102 × 152 mm die-cut (DK-11241)', [102, 152], 300, [1164, 1660], 'portrait', 'qr', [102, 153, 12]],
  ['dymo-30252', ['dymo-30320'], 'DYMO 30252 / 30320 address 28 × 89 mm', [28, 89], 300, [299, 963], 'rotated', 'qr'],
  ['dymo-30334', ['dymo-11354'], 'DYMO 30334 / 11354 multipurpose 57 × 32 mm', [57, 32], 300, [651, 339], 'landscape', 'qr'],
  ['dymo-99012', ['dymo-30321'], 'DYMO 99012 / 30321 large address 36 × 89 mm', [36, 89], 300, [392, 961], 'rotated', 'qr'],
  // Square, but 268 dots across the head and 212 along the feed: laid out across the 268, the name fits above the code.
  ['dymo-30332', [], 'DYMO 30332 square 25 × 25 mm', [25, 25], 300, [268, 212], 'rotated', 'qr'],
  ['dymo-30336', [], 'DYMO 30336 small multipurpose 25 × 54 mm', [25, 54], 300, [268, 550], 'rotated', 'qr'],
  ['zebra-2x1-203dpi', [], 'Zebra 2 × 1 in, 203 dpi', [50.8, 25.4], 203, [406, 203], 'landscape', 'qr'],
  ['zebra-2.25x1.25-203dpi', [], 'Zebra 2.25 × 1.25 in, 203 dpi', [57.2, 31.8], 203, [457, 254], 'landscape', 'qr'],
  ['zebra-3x1-203dpi', [], 'Zebra 3 × 1 in, 203 dpi', [76.2, 25.4], 203, [609, 203], 'landscape', 'qr'],
  ['zebra-4x2-203dpi', [], 'Zebra 4 × 2 in, 203 dpi', [101.6, 50.8], 203, [812, 406], 'landscape', 'qr'],
  ['zebra-4x6-203dpi', [], 'Zebra 4 × 6 in, 203 dpi', [101.6, 152.4], 203, [812, 1218], 'portrait', 'qr'],
  ['zebra-2x1-300dpi', [], 'Zebra 2 × 1 in, 300 dpi', [50.8, 25.4], 300, [600, 300], 'landscape', 'qr'],
  ['zebra-4x6-300dpi', [], 'Zebra 4 × 6 in, 300 dpi', [101.6, 152.4], 300, [1200, 1800], 'portrait', 'qr'],
  // Homebox's default size (nominally 72 dpi); printed on ~203 dpi hardware, so 203-dpi rules.
  ['homebox-526x200', [], 'Homebox default 526 × 200 px', [65.8, 25], 203, [526, 200], 'landscape', 'qr'],
];

/** Base length of continuous tape: the die-cut label of the same width (62 → 62x29, 29 → 29x90). */
const CONTINUOUS_MIN: Record<number, number> = { 696: 271, 306: 991 };

const BLACK: readonly Colour[] = Object.freeze(['black']);

export const STOCKS: readonly Stock[] = ROWS.map(([name, aliases, title, [widthMm, lengthMm], dpi, [widthDots, lengthDots], orientation, code2d, ql, colours]) =>
  Object.freeze({
    name,
    aliases: Object.freeze(aliases),
    title,
    widthMm,
    lengthMm,
    dpi,
    widthDots,
    lengthDots,
    maxLengthDots: lengthDots ?? CONTINUOUS_MAX_LENGTH_DOTS,
    minLengthDots: lengthDots ?? CONTINUOUS_MIN[widthDots] ?? widthDots,
    orientation,
    code2d,
    ...(ql ? { brotherQl: Object.freeze({ widthMm: ql[0], lengthMm: ql[1], offsetRight: ql[2] }) } : {}),
    colours: colours ? Object.freeze(colours) : BLACK,
  }),
);

const BY_NAME: ReadonlyMap<string, Stock> = new Map(STOCKS.flatMap((s) => [s.name, ...s.aliases].map((n) => [n, s] as const)));

/**
 * Unprinted paper beyond the printable area, in dots on each side: across the print head
 * and along the feed (half the label's size less its printable dots; none along continuous
 * tape, none on Zebra stock, whose PNG is the whole label). A 2D code's quiet zone may lie
 * in it where that keeps a QR code (layout.ts belowMargin); a scanner sees it as paper.
 */
export function paperDots(stock: Stock): { across: number; along: number } {
  const side = (mm: number | null, dots: number | null) => (mm === null || dots === null ? 0 : Math.max(0, Math.floor((mm * stock.dpi) / 25.4 - dots) >> 1));
  return { across: side(stock.widthMm, stock.widthDots), along: side(stock.lengthMm, stock.lengthDots) };
}

/** Every name a stock answers to (canonical names first, then aliases). */
export const STOCK_NAMES: readonly string[] = [...STOCKS.map((s) => s.name), ...STOCKS.flatMap((s) => s.aliases)];

/** Whether the stock prints red (a two-colour roll): designs' red marks are drawn red, not black. */
export function printsRed(stock: Stock): boolean {
  return stock.colours.includes('red');
}

/** The stock with this name or alias. */
export function findStock(name: string): Stock | undefined {
  return BY_NAME.get(name);
}

export function getStock(name: string): Stock {
  const s = BY_NAME.get(name);
  if (!s) throw new RangeError(`unknown label stock: ${name}`);
  return s;
}
