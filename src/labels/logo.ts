/**
 * A template's logo: an uploaded PNG or SVG turned once, when the template is
 * saved, into a clean 1-bit picture at the stock's dots (dark where the
 * picture over white is darker than 50% grey). Labels then only copy its bits.
 *
 * Uploads are hostile until proven otherwise: the size and the PNG's declared
 * dimensions are checked before anything decodes it, and an SVG may reference
 * nothing outside itself (no external images, fonts, stylesheets or entities),
 * so saving a template never makes the server fetch or read anything.
 */
import { createCanvas, loadImage } from 'canvas';
import type { Bitmap } from './design.js';
import { checkPng, hasPngSignature, PngError } from './png-check.js';

/** Largest upload (decoded bytes), and largest PNG side in pixels. */
export const LOGO_MAX_BYTES = 384 * 1024;
export const LOGO_MAX_SOURCE_SIDE = 4096;

/** The upload cannot become a logo; the message says why, for the client. */
export class LogoError extends RangeError {
  override name = 'LogoError';
}

/** What in an SVG could reach outside it: DOCTYPE/entities, stylesheets, scripts, foreign content, non-local links. */
const SVG_FORBIDDEN: readonly [RegExp, string][] = [
  [/<!DOCTYPE|<!ENTITY/i, 'a DOCTYPE or entity declaration'],
  [/<\?xml-stylesheet/i, 'a stylesheet processing instruction'],
  [/<script\b/i, 'a script'],
  [/<foreignObject\b/i, 'foreign content'],
  [/@import/i, 'a CSS @import'],
  [/\bhref\s*=\s*["'](?!#)/i, 'a link to something outside the SVG (only #fragment links are allowed)'],
  [/url\(\s*["']?(?!#)/i, 'a url() outside the SVG (only url(#id) is allowed)'],
  [/\b(?:src|xml:base)\s*=/i, 'an external source'],
];

export type LogoFormat = 'png' | 'svg';

export function logoFormat(data: Buffer): LogoFormat {
  if (hasPngSignature(data)) return 'png';
  const head = data.subarray(0, 4096).toString('utf8');
  // Markup with an <svg> element near its start; what it may not contain is checked next (checkUpload).
  if (/^\uFEFF?\s*</.test(head) && /<svg[\s>]/i.test(head)) return 'svg';
  throw new LogoError('not a PNG or SVG image');
}

function checkUpload(data: Buffer): LogoFormat {
  if (data.length === 0) throw new LogoError('the image is empty');
  if (data.length > LOGO_MAX_BYTES) throw new LogoError(`the image is ${data.length} bytes; at most ${LOGO_MAX_BYTES} are accepted`);
  const format = logoFormat(data);
  if (format === 'png') {
    // The whole structure, and the declared size, before libpng inflates anything (png-check.ts,
    // as for printed images). libpng is handed only a whole, undamaged file: a PNG cut off after
    // its header took the test server's process down in 2 of 4 runs; checked here, none in 4.
    // libpng itself stops inflating at the size the header declares.
    try {
      checkPng(data, { maxSide: LOGO_MAX_SOURCE_SIDE });
    } catch (err) {
      if (err instanceof PngError) throw new LogoError(err.message);
      throw err;
    }
  } else {
    const text = data.toString('utf8');
    for (const [pattern, what] of SVG_FORBIDDEN) if (pattern.test(text)) throw new LogoError(`the SVG contains ${what}`);
  }
  return format;
}

/**
 * The upload as a 1-bit picture `heightDots` tall (its width follows its aspect
 * ratio), at most `maxWidthDots` wide.
 */
export async function logoBitmap(data: Buffer, heightDots: number, maxWidthDots: number): Promise<Bitmap> {
  const format = checkUpload(data);
  let image: Awaited<ReturnType<typeof loadImage>>;
  try {
    image = await loadImage(data);
  } catch (err) {
    const why = format === 'svg' && /width and height/i.test((err as Error).message) ? 'the SVG needs width and height attributes' : `the ${format.toUpperCase()} cannot be read`;
    throw new LogoError(why);
  }
  if (!(image.width > 0 && image.height > 0)) throw new LogoError(`the ${format.toUpperCase()} has no size`);
  const height = Math.max(1, Math.round(heightDots));
  const width = Math.max(1, Math.round((image.width * height) / image.height));
  if (width > maxWidthDots) throw new LogoError(`at this height the logo is ${width} dots wide; the stock allows at most ${maxWidthDots}`);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(image, 0, 0, width, height);
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const stride = ((width + 7) >> 3) + 1;
  const rows = new Uint8Array(stride * height).fill(0xff);
  for (let y = 0; y < height; y++) {
    rows[y * stride] = 0; // filter byte: none
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      const grey = (rgba[p]! * 299 + rgba[p + 1]! * 587 + rgba[p + 2]! * 114) / 1000;
      if (grey < 128) rows[y * stride + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  return { width, height, rows };
}

/** Dark pixels of a picture (for telling an all-white logo from a real one). */
export function inkOf(b: Bitmap): number {
  const stride = ((b.width + 7) >> 3) + 1;
  let n = 0;
  for (let y = 0; y < b.height; y++) for (let x = 0; x < b.width; x++) if ((b.rows[y * stride + 1 + (x >> 3)]! & (0x80 >> (x & 7))) === 0) n++;
  return n;
}
