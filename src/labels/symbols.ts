/**
 * Every machine-readable code goes through this one seam: a symbology and its
 * data in, a symbol value out (modules, quiet zone, human-readable text),
 * encoded once. Layout sizes and places that value, painters draw its modules
 * as whole-dot rectangles; nothing downstream encodes again. What layout needs
 * to know of a symbology (2D or linear, quiet zone, the modules it needs, its
 * error-correction choices) is its entry in SYMBOLOGIES: layout never branches
 * on a symbology's name, so a new symbology is a new entry here.
 *
 * Encoders, chosen by measurement per new label (the budget is ~1 ms): QR
 * with our own qr.ts (bwip-js ~5.7 ms, qr.ts ~0.3 ms); DataMatrix (ECC 200)
 * with our own datamatrix.ts (~0.07 ms; the symbols @zxing/library drew, which
 * installed 25 MB for it: see there); Code 128 with jsbarcode (8 µs; bwip-js
 * 77 µs, same bars for even digit counts).
 */
import JsBarcode from 'jsbarcode';
import { dataMatrix, type DataMatrix } from './datamatrix.js';
import { qrMatrix, qrSymbolSize, QR_QUIET_MODULES, type QrLevel } from './qr.js';

/** The 2D symbologies (square symbols: layout gives them a square). */
export type MatrixSymbologyName = 'qr' | 'datamatrix';
/** The linear symbologies. */
export type LinearSymbologyName = 'code128';
export type Symbology = MatrixSymbologyName | LinearSymbologyName;

/** A 2D symbol: a grid of modules. */
export interface MatrixSymbol {
  kind: 'matrix';
  symbology: MatrixSymbologyName;
  data: string;
  /** Modules per row and per column, without quiet zone. */
  cols: number;
  rows: number;
  /** rows*cols cells, row-major, 1 = dark. */
  dark: Uint8Array;
  /** Light modules each side that nothing else may enter. */
  quiet: number;
  /** QR error-correction level (absent for DataMatrix, whose ECC 200 level is fixed by its size). */
  level?: QrLevel;
}

/** A linear symbol: alternating bar and space widths in modules, starting with a bar. */
export interface BarsSymbol {
  kind: 'bars';
  symbology: LinearSymbologyName;
  data: string;
  widths: readonly number[];
  /** Total width of the bars and spaces in modules, without quiet zones. */
  modules: number;
  /** Light modules at each end. */
  quiet: number;
  /** Human-readable line printed under the bars (may differ from data, e.g. `000-001` for 000001). */
  text: string;
}

export type CodeSymbol = MatrixSymbol | BarsSymbol;

/** Thrown when data cannot be put into a symbology (e.g. non-digits for the asset barcode). */
export class SymbolError extends RangeError {
  override name = 'SymbolError';
}

const dmCache = new Map<string, MatrixSymbol>();
const CACHE_MAX = 256;

/** A QR code at an error-correction level. */
export function encodeQr(data: string, level: QrLevel): MatrixSymbol {
  const m = qrMatrix(data, level);
  return { kind: 'matrix', symbology: 'qr', data, cols: m.size, rows: m.size, dark: m.dark, quiet: SYMBOLOGIES.qr.quiet, level };
}

/** A square ECC 200 DataMatrix. */
export function encodeDataMatrix(data: string): MatrixSymbol {
  const hit = dmCache.get(data);
  if (hit) return hit;
  let matrix: DataMatrix;
  try {
    matrix = dataMatrix(data);
  } catch (e) {
    throw new SymbolError(`cannot encode as DataMatrix: ${(e as Error).message}`);
  }
  const { size, dark } = matrix;
  const sym: MatrixSymbol = { kind: 'matrix', symbology: 'datamatrix', data, cols: size, rows: size, dark, quiet: SYMBOLOGIES.datamatrix.quiet };
  if (dmCache.size >= CACHE_MAX) dmCache.delete(dmCache.keys().next().value as string);
  dmCache.set(data, sym);
  return sym;
}

/**
 * Code 128 of digits only, so it is encoded in code set C (two digits per
 * symbol character: half the width of the dashed text in set B). The
 * human-readable `text` is printed under the bars.
 */
export function encodeCode128Digits(digits: string, text: string): BarsSymbol {
  if (!/^\d+$/.test(digits)) throw new SymbolError(`the asset barcode encodes digits only, not ${JSON.stringify(digits)}`);
  return encodeCode128(digits, text);
}

/**
 * Code 128 of printable ASCII (a grocycode such as `grcy:p:12:345`): jsbarcode's
 * automatic mode switches between code sets A, B and C (C for runs of digits),
 * so digits-only data gives exactly the bars of encodeCode128Digits.
 */
export function encodeCode128(data: string, text: string): BarsSymbol {
  if (!/^[\x20-\x7e]+$/.test(data)) throw new SymbolError(`Code 128 encodes printable ASCII only, not ${JSON.stringify(data)}`);
  // jsbarcode renders into any object: a plain one gets `encodings` (modules as '1'/'0'), no DOM needed.
  const target: { encodings?: { data: string }[] } = {};
  let valid = true;
  JsBarcode(target as unknown as SVGElement, data, { format: 'CODE128', valid: (ok: boolean) => void (valid = ok) });
  const modules = target.encodings?.map((e) => e.data).join('') ?? '';
  if (!valid || !/^1[01]*1$/.test(modules)) throw new SymbolError(`cannot encode as Code 128: ${JSON.stringify(data)}`);
  // Runs of equal modules, starting with a bar.
  const widths: number[] = [];
  for (let i = 0; i < modules.length; ) {
    let j = i;
    while (j < modules.length && modules[j] === modules[i]) j++;
    widths.push(j - i);
    i = j;
  }
  return { kind: 'bars', symbology: 'code128', data, widths, modules: modules.length, quiet: SYMBOLOGIES.code128.quiet, text };
}

/** An error-correction level, where a symbology lets the encoder choose (QR's; a DataMatrix's is fixed by its size). */
export type EcLevel = QrLevel;

/** What layout knows of a 2D symbology: its sizes in modules and the dots it needs. */
export interface MatrixSymbology {
  kind: 'matrix';
  /** What a person calls it (in messages). */
  title: string;
  /** Light modules each side that nothing else may enter. */
  quiet: number;
  /** Smallest module (dots) it is printed with. */
  minModule: number;
  /** Module (dots) it is given where the stock has the room, before the text (larger than minModule where that reads more reliably). */
  preferredModule: number;
  /**
   * Error-correction levels, where the encoder has a choice: `usual` where its module
   * reaches minModule, then the first of `stronger` that keeps that module (spare room
   * buys damage tolerance), or `fallback` where the usual level does not reach minModule.
   */
  levels?: { usual: EcLevel; stronger: readonly EcLevel[]; fallback: EcLevel };
  /** Modules across the symbol for the data (at a level), without quiet zone; undefined where the data does not fit. */
  modulesAcross(data: string, level?: EcLevel): number | undefined;
  /** Modules across its least dense symbol for the data (its largest one where the data fits none): what its room is sized for. */
  leastModulesAcross(data: string): number;
  encode(data: string, level?: EcLevel): MatrixSymbol;
  /** A 2D symbology, smaller for the same data, that may stand in where the stock's choice of this one leaves no room (LabelContent.code2d.smaller). */
  smaller?: MatrixSymbologyName;
  /** Its quiet zone may go on into the unprinted paper beyond the printable area, tried where it leaves no line for the title otherwise (layout.ts belowMargin). */
  quietIntoPaper: boolean;
}

/** What layout knows of a linear symbology. */
export interface LinearSymbology {
  kind: 'bars';
  title: string;
  /** Light modules at each end. */
  quiet: number;
  /**
   * Bar module widths (dots) to try, best first (layout.ts BAR_CHOICES, measured with the
   * robustness suite): `preferred` in both orientations, `lastResort` only after them.
   */
  modules: { preferred: readonly number[]; lastResort: number };
  /** `digitsOnly`: the data is an asset id's digits (a design's code without `text`). */
  encode(data: string, caption: string, digitsOnly: boolean): BarsSymbol;
}

/** The largest QR code (version 40), as wide as a code too long for every version is sized. */
const QR_LARGEST_MODULES = 177;

/**
 * Every symbology and what it needs. Module sizes measured with the robustness suite
 * (test/labels/robustness.test.ts): 2D codes with 3-dot modules do not survive blur 1.5,
 * 1 px ink spread or a half-resolution scan; with 4 they do, though a DataMatrix at 4 then
 * stops zxing at some placements on the scanner's grid, at 5 it reads. Linear codes: 4-dot
 * bars read after every degradation, 3-dot bars at half resolution at one scanner grid phase
 * of two, 2-dot bars (they do not survive blur 1.5) only as a last resort, so that a 12-digit
 * asset id still gets its barcode on 1-inch stock.
 */
export const SYMBOLOGIES: { readonly [S in MatrixSymbologyName]: MatrixSymbology } & { readonly [S in LinearSymbologyName]: LinearSymbology } = {
  qr: {
    kind: 'matrix',
    title: 'QR code',
    quiet: QR_QUIET_MODULES,
    minModule: 4,
    preferredModule: 4,
    levels: { usual: 'M', stronger: ['H', 'Q'], fallback: 'L' },
    modulesAcross: (data, level = 'M') => qrSymbolSize(data, level),
    leastModulesAcross: (data) => qrSymbolSize(data, 'L') ?? QR_LARGEST_MODULES,
    encode: (data, level = 'M') => encodeQr(data, level),
    smaller: 'datamatrix',
    quietIntoPaper: true,
  },
  // Quiet zone 2 modules: ISO/IEC 16022 asks for 1, scanners and our print-and-scan tests do better with 2.
  datamatrix: {
    kind: 'matrix',
    title: 'DataMatrix',
    quiet: 2,
    minModule: 4,
    preferredModule: 5,
    modulesAcross: (data) => encodeDataMatrix(data).cols,
    leastModulesAcross: (data) => encodeDataMatrix(data).cols,
    encode: (data) => encodeDataMatrix(data),
    quietIntoPaper: false,
  },
  code128: {
    kind: 'bars',
    title: 'Code 128',
    quiet: 10,
    modules: { preferred: [4, 3], lastResort: 2 },
    encode: (data, caption, digitsOnly) => (digitsOnly ? encodeCode128Digits(data, caption) : encodeCode128(data, caption)),
  },
};

export function isMatrixSymbology(s: Symbology): s is MatrixSymbologyName {
  return SYMBOLOGIES[s].kind === 'matrix';
}

/** The 2D symbologies, in SYMBOLOGIES' order: a label carries one of them at most. */
export const MATRIX_SYMBOLOGIES: readonly MatrixSymbologyName[] = (Object.keys(SYMBOLOGIES) as Symbology[]).filter(isMatrixSymbology);

/**
 * Calls rect(x, y, w, h) for each horizontal run of dark modules of a matrix
 * symbol whose symbol corner (inside the quiet zone) is at (x, y), in dots.
 */
export function matrixRuns(s: MatrixSymbol, x: number, y: number, module: number, rect: (x: number, y: number, w: number, h: number) => void): void {
  for (let r = 0; r < s.rows; r++) {
    const row = r * s.cols;
    let c = 0;
    while (c < s.cols) {
      if (!s.dark[row + c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < s.cols && s.dark[row + c]) c++;
      rect(x + start * module, y + r * module, (c - start) * module, module);
    }
  }
}

/**
 * Calls rect for each bar of a linear symbol whose first bar starts at
 * (x, y). 'vertical' bars (the usual picture) are `length` dots tall and run
 * left to right; 'horizontal' bars are `length` dots wide and run top to
 * bottom (the symbol turned 90° clockwise).
 */
export function barRuns(
  s: BarsSymbol,
  x: number,
  y: number,
  module: number,
  length: number,
  bars: 'vertical' | 'horizontal',
  rect: (x: number, y: number, w: number, h: number) => void,
): void {
  let at = 0;
  for (let i = 0; i < s.widths.length; i++) {
    const w = s.widths[i]! * module;
    if (i % 2 === 0 && w > 0) {
      if (bars === 'vertical') rect(x + at, y, w, length);
      else rect(x, y + at, length, w);
    }
    at += w;
  }
}
