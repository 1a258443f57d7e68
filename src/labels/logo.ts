/**
 * A template's logo: an uploaded PNG or SVG turned once, when the template is
 * saved, into a clean 1-bit picture at the stock's dots (dark where the
 * picture over white is darker than 50% grey). Labels then only copy its bits.
 *
 * Uploads are hostile until proven otherwise: the size and the PNG's declared
 * dimensions are checked before anything decodes it, and an SVG is rebuilt from
 * an allow-list (svg-sanitize.ts) before librsvg sees it, so saving a template
 * never makes the server fetch or read anything. drawLogo runs only in the logo
 * process (logo-process.ts), where a time limit can stop it.
 */
import { ProblemError } from '../errors.js';
import { createCanvas, loadImage } from 'canvas';
import type { Bitmap } from './design.js';
import { checkPng, hasPngSignature, PngError } from './png-check.js';
import { sanitizeSvg, SvgError, type SanitizedSvg } from './svg-sanitize.js';

/** Largest upload (decoded bytes), and largest PNG side in pixels. */
export const LOGO_MAX_BYTES = 384 * 1024;
export const LOGO_MAX_SOURCE_SIDE = 4096;

/** The upload cannot become a logo; the message says why, for the client (template-design.ts names the field). */
export class LogoError extends ProblemError {
  override name = 'LogoError';
  constructor(message: string) {
    super('invalid-template', message);
  }
}


export type LogoFormat = 'png' | 'svg';

export function logoFormat(data: Buffer): LogoFormat {
  if (hasPngSignature(data)) return 'png';
  const head = data.subarray(0, 4096).toString('utf8');
  // Markup with an <svg> element near its start; what it may not contain is checked next (checkUpload).
  if (/^\uFEFF?\s*</.test(head) && /<svg[\s>]/i.test(head)) return 'svg';
  throw new LogoError('not a PNG or SVG image');
}

/** Checks that cost nothing (for the main thread, before the logo process is asked). */
export function checkSize(data: Buffer): void {
  if (data.length === 0) throw new LogoError('the image is empty');
  if (data.length > LOGO_MAX_BYTES) throw new LogoError(`the image is ${data.length} bytes; at most ${LOGO_MAX_BYTES} are accepted`);
}

function checkUpload(data: Buffer): { format: 'png' } | { format: 'svg'; svg: SanitizedSvg } {
  checkSize(data);
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
    return { format };
  }
  try {
    return { format, svg: sanitizeSvg(data) };
  } catch (err) {
    if (err instanceof SvgError) throw new LogoError(err.message);
    throw err;
  }
}

/**
 * The upload as a 1-bit picture `heightDots` tall (its width follows its aspect
 * ratio), at most `maxWidthDots` wide. Parses and decodes hostile input: call it
 * in the logo process only (logoBitmap in logo-process.ts).
 */
export async function drawLogo(data: Buffer, heightDots: number, maxWidthDots: number): Promise<Bitmap> {
  const upload = checkUpload(data);
  const name = upload.format.toUpperCase();
  const height = Math.max(1, Math.round(heightDots));
  // An SVG is drawn at exactly the logo's size (its rewrite says so), so a huge declared size costs nothing.
  const aspect = upload.format === 'svg' ? upload.svg.aspect : undefined;
  const widthFor = (ratio: number) => {
    const width = Math.max(1, Math.round(ratio * height));
    if (width > maxWidthDots) throw new LogoError(`at this height the logo is ${width} dots wide; the stock allows at most ${maxWidthDots}`);
    return width;
  };
  const planned = aspect === undefined ? undefined : widthFor(aspect);
  let image: Awaited<ReturnType<typeof loadImage>>;
  try {
    image = await loadImage(upload.format === 'svg' ? Buffer.from(upload.svg.markup(planned!, height)) : data);
  } catch {
    throw new LogoError(`the ${name} cannot be read`);
  }
  if (!(image.width > 0 && image.height > 0)) throw new LogoError(`the ${name} has no size`);
  const width = planned ?? widthFor(image.width / image.height);
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
