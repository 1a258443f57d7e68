/**
 * A label's physical size from its PNG: the pixel size (IHDR) and the printer's
 * density (pHYs, which the service always writes), so the preview can be drawn
 * in CSS millimetres at true size.
 */
export interface PngSize {
  widthPx: number;
  heightPx: number;
  /** Dots per inch from pHYs, or null when the PNG has none. */
  dpi: number | null;
}

export function pngSize(bytes: Uint8Array): PngSize | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 33 || view.getUint32(0) !== 0x89504e47) return null;
  const size: PngSize = { widthPx: view.getUint32(16), heightPx: view.getUint32(20), dpi: null };
  // Chunks: length (4), type (4), data, CRC (4). pHYs comes before IDAT.
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === 'pHYs' && length === 9 && at + 17 <= bytes.length && bytes[at + 16] === 1) {
      size.dpi = Math.round(view.getUint32(at + 8) * 0.0254);
      break;
    }
    if (type === 'IDAT' || type === 'IEND') break;
    at += 12 + length;
  }
  return size;
}

/** Millimetres of `px` dots at `dpi`, to one decimal. */
export function mm(px: number, dpi: number): number {
  return Math.round((px / dpi) * 254) / 10;
}
