/**
 * QR codes drawn as exact dot squares. Thermal heads print whole dots, so a
 * module is always an integer number of dots; fractional modules smear into
 * uneven bars after thresholding and stop scanners.
 */
import QRCode from 'qrcode';
import type { CanvasRenderingContext2D } from 'canvas';

/** Modules of white around the symbol, as ISO/IEC 18004 asks. */
export const QR_QUIET_MODULES = 4;

export interface QrMatrix {
  /** Modules per side, without quiet zone. */
  size: number;
  /** size*size cells, row-major, 1 = dark. */
  dark: Uint8Array;
}

// Labels for one record are often re-rendered (preview, then print): keep a few.
const cache = new Map<string, QrMatrix>();
const CACHE_MAX = 256;

export function qrMatrix(text: string): QrMatrix {
  const hit = cache.get(text);
  if (hit) return hit;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const m: QrMatrix = { size: qr.modules.size, dark: Uint8Array.from(qr.modules.data) };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(text, m);
  return m;
}

/** Smallest module in dots a printer at this density still prints cleanly. */
export function minQrModule(dpi: number): number {
  return dpi >= 300 ? 3 : 2;
}

/** Side in dots of the symbol plus quiet zone at a given module size. */
export function qrBlockSide(m: QrMatrix, modulePx: number): number {
  return (m.size + 2 * QR_QUIET_MODULES) * modulePx;
}

/**
 * Draws the symbol with its top-left quiet-zone corner at (x, y). Horizontal
 * runs of dark modules become one rectangle: fewer Cairo calls, no seams.
 */
export function drawQr(ctx: CanvasRenderingContext2D, m: QrMatrix, x: number, y: number, modulePx: number): void {
  const q = QR_QUIET_MODULES * modulePx;
  ctx.fillStyle = '#fff';
  ctx.fillRect(x, y, qrBlockSide(m, modulePx), qrBlockSide(m, modulePx));
  ctx.fillStyle = '#000';
  const n = m.size;
  for (let r = 0; r < n; r++) {
    const row = r * n;
    let c = 0;
    while (c < n) {
      if (!m.dark[row + c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < n && m.dark[row + c]) c++;
      ctx.fillRect(x + q + start * modulePx, y + q + r * modulePx, (c - start) * modulePx, modulePx);
    }
  }
}
