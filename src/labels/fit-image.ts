/**
 * A PNG made elsewhere (Homebox, InvenTree, a script) → a 1-bit PNG of exactly
 * the stock's dots, so every printer driver gets what our own labels give it.
 * The image is thresholded (mono-png.ts), scaled to fit the printable area
 * (up or down, aspect kept, nearest dot: a 1-bit picture stays crisp), turned a
 * quarter clockwise when that fits it larger on die-cut stock (a wide picture on
 * tall, narrow stock, as the engine lays out 'rotated' stock), and centred. On
 * continuous tape it is never turned: it fills the tape's width and the length
 * follows, within the stock's bounds. Nothing is
 * ever drawn outside the stock.
 */
import { ProblemError, type ProblemOptions, type ProblemSlug } from '../errors.js';
import { encodePng1 } from './png.js';
import type { Stock } from './stock.js';
import { decodeMonoPngStreaming, emptyBitmap, getDot, PngError, setDot, type MonoBitmap } from './mono-png.js';

/** Largest picture accepted (width × height), so a small compressed body cannot ask for gigabytes. */
export const MAX_IMAGE_PIXELS = 20_000_000;

/**
 * The image cannot be printed: `fault` says why (png-check.ts), the message says what, for
 * the client. A 400 when it is no PNG at all, 413 when it is too large, else 422 (invalid-image).
 */
export class ImageError extends ProblemError {
  override name = 'ImageError';
  constructor(readonly fault: PngError['fault'], message: string) {
    super(...imageProblem(fault, message));
  }
}

function imageProblem(fault: PngError['fault'], message: string): [ProblemSlug, string, ProblemOptions] {
  if (fault === 'not-png') return ['invalid-request', message, { detail: `The body is not a PNG image: ${message}.` }];
  if (fault === 'too-large') return ['payload-too-large', message, { detail: `The image is too large to print: ${message}.` }];
  return ['invalid-image', message, { detail: `The PNG cannot be printed: ${message}.` }];
}

export interface FittedImage {
  png: Buffer;
  /** The picture's own size in pixels. */
  sourceWidth: number;
  sourceHeight: number;
  width: number;
  height: number;
  rotated: boolean;
}

/** Checks and decodes `png` (as it inflates, see mono-png.ts) and fits it to the stock. Slow for large pictures: run it off the event loop (render-pool.ts). */
export async function fitImageToStock(png: Buffer, stock: Stock): Promise<FittedImage> {
  let source: MonoBitmap;
  try {
    source = await decodeMonoPngStreaming(png, { maxPixels: MAX_IMAGE_PIXELS });
  } catch (err) {
    if (err instanceof PngError) throw new ImageError(err.fault, err.message);
    throw err;
  }
  const [w, h] = [source.width, source.height];
  const width = stock.widthDots;
  const maxLength = stock.lengthDots ?? stock.maxLengthDots;
  const scaleOf = (sw: number, sh: number) => Math.min(width / sw, maxLength / sh);
  // Die-cut stock: turned when that fits it larger. Continuous tape: never (its length grows to fit instead).
  const rotated = stock.lengthDots !== null && scaleOf(source.height, source.width) > scaleOf(source.width, source.height) * 1.0001;
  const [sw, sh] = rotated ? [source.height, source.width] : [source.width, source.height];
  const scale = scaleOf(sw, sh);
  const dw = Math.max(1, Math.min(width, Math.round(sw * scale)));
  const dh = Math.max(1, Math.min(maxLength, Math.round(sh * scale)));
  const height = stock.lengthDots ?? Math.max(stock.minLengthDots, dh);
  const out = emptyBitmap(width, height);
  const x0 = Math.floor((width - dw) / 2);
  const y0 = Math.floor((height - dh) / 2);
  for (let y = 0; y < dh; y++) {
    const v = Math.min(sh - 1, Math.floor(((y + 0.5) * sh) / dh));
    for (let x = 0; x < dw; x++) {
      const u = Math.min(sw - 1, Math.floor(((x + 0.5) * sw) / dw));
      // Turned a quarter clockwise: the output's (u, v) is the source's (v, height-1-u).
      const black = rotated ? getDot(source, v, source.height - 1 - u) : getDot(source, u, v);
      if (black) setDot(out, x0 + x, y0 + y);
    }
  }
  return { png: encodePng1(scanlines(out), width, height, stock.dpi), sourceWidth: w, sourceHeight: h, width, height, rotated };
}

/** MonoBitmap rows (1 = black) → PNG scanlines of 1-bit gray (filter byte 0, 1 = white). */
function scanlines(b: MonoBitmap): Buffer {
  const rows = Buffer.alloc((b.stride + 1) * b.height);
  for (let y = 0; y < b.height; y++) {
    const at = y * (b.stride + 1);
    for (let i = 0; i < b.stride; i++) rows[at + 1 + i] = ~b.bits[y * b.stride + i]! & 0xff;
    // Padding bits past the width stay white as well (already 1 after the inversion).
  }
  return rows;
}
