/**
 * Every machine-readable code goes through this one seam: a symbology and its
 * data in, a symbol value out (modules, quiet zone, human-readable text),
 * encoded once. Layout sizes and places that value, painters draw its modules
 * as whole-dot rectangles; nothing downstream encodes again.
 *
 * Encoders, chosen by measurement per new label (the budget is ~1 ms): QR
 * with our own qr.ts (bwip-js ~5.7 ms, qr.ts ~0.3 ms); DataMatrix (ECC 200)
 * with our own datamatrix.ts (~0.07 ms; the symbols @zxing/library drew, which
 * installed 25 MB for it: see there); Code 128 with jsbarcode (8 µs; bwip-js
 * 77 µs, same bars for even digit counts).
 */
import JsBarcode from 'jsbarcode';
import { dataMatrix, type DataMatrix } from './datamatrix.js';
import { qrMatrix, QR_QUIET_MODULES, type QrLevel } from './qr.js';

export type Symbology = 'qr' | 'datamatrix' | 'code128';

/** A 2D symbol: a grid of modules. */
export interface MatrixSymbol {
  kind: 'matrix';
  symbology: 'qr' | 'datamatrix';
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
  symbology: 'code128';
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
  return { kind: 'matrix', symbology: 'qr', data, cols: m.size, rows: m.size, dark: m.dark, quiet: QR_QUIET_MODULES, level };
}

/**
 * A square ECC 200 DataMatrix. Quiet zone 2 modules: ISO/IEC 16022 asks for 1,
 * scanners and our print-and-scan tests do better with 2.
 */
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
  const sym: MatrixSymbol = { kind: 'matrix', symbology: 'datamatrix', data, cols: size, rows: size, dark, quiet: 2 };
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
  return { kind: 'bars', symbology: 'code128', data, widths, modules: modules.length, quiet: 10, text };
}

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
