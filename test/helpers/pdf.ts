/**
 * PDFs as pixels for tests: poppler's pdftoppm rasterises each page (gray,
 * PGM), and the pages come back as 8-bit gray images with their density.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GrayPage {
  width: number;
  height: number;
  /** One byte per pixel, 0 = black. */
  data: Uint8Array;
  dpi: number;
}

export function rasterizePdf(pdf: Buffer, dpi = 300): GrayPage[] {
  const dir = mkdtempSync(join(tmpdir(), 'lm-pdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', String(dpi), '-gray', join(dir, 'in.pdf'), join(dir, 'page')], { timeout: 120_000 });
    return readdirSync(dir)
      .filter((f) => f.endsWith('.pgm'))
      .sort()
      .map((f) => ({ ...readPgm(readFileSync(join(dir, f))), dpi }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Binary PGM (P5, maxval 255). */
function readPgm(buf: Buffer): { width: number; height: number; data: Uint8Array } {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.toString('latin1', 0, 64));
  if (!header || header[3] !== '255') throw new Error('not an 8-bit binary PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, data: buf.subarray(header[0].length, header[0].length + width * height) };
}

/** Number of pages, from the PDF's own page tree (pdfinfo). */
/** Bounding box of the dark pixels of a page (px), or of the part of it inside [x0, x1) x [y0, y1). */
export function pageInkBox(page: GrayPage, x0 = 0, y0 = 0, x1 = page.width, y1 = page.height): { x0: number; y0: number; x1: number; y1: number } {
  const b = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (let y = Math.max(0, y0); y < Math.min(page.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(page.width, x1); x++) {
      if (page.data[y * page.width + x]! >= 128) continue;
      b.x0 = Math.min(b.x0, x);
      b.y0 = Math.min(b.y0, y);
      b.x1 = Math.max(b.x1, x + 1);
      b.y1 = Math.max(b.y1, y + 1);
    }
  }
  return b;
}

export function pdfPageCount(pdf: Buffer): number {
  const out = execFileSync('pdfinfo', ['-'], { input: pdf }).toString('utf8');
  return Number(/^Pages:\s+(\d+)/m.exec(out)![1]);
}

/** A region of a gray page as RGBA (for the barcode decoder), white outside the page. */
export function cropRgba(page: GrayPage, x0: number, y0: number, w: number, h: number): { data: Uint8ClampedArray; width: number; height: number } {
  const data = new Uint8ClampedArray(w * h * 4).fill(255);
  for (let y = 0; y < h; y++) {
    const py = y0 + y;
    if (py < 0 || py >= page.height) continue;
    for (let x = 0; x < w; x++) {
      const px = x0 + x;
      if (px < 0 || px >= page.width) continue;
      const v = page.data[py * page.width + px]!;
      const o = (y * w + x) * 4;
      data[o] = data[o + 1] = data[o + 2] = v;
    }
  }
  return { data, width: w, height: h };
}

/** pdffonts' table rows: name, type, encoding, embedded, subset, unicode, object id. */
export function pdfFonts(pdf: Buffer): string[] {
  return execFileSync('pdffonts', ['-'], { input: pdf }).toString('utf8').split('\n').slice(2).filter((l) => l.trim() !== '');
}

/** Raster images in the PDF (pdfimages -list). */
export function pdfImageCount(pdf: Buffer): number {
  return execFileSync('pdfimages', ['-list', '-'], { input: pdf }).toString('utf8').split('\n').slice(2).filter((l) => l.trim() !== '').length;
}

/** The text of a PDF (pdftotext, reading order). */
export function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString('utf8');
}

/** pdfinfo's report; throws on anything poppler complains about (a broken cross-reference table is repaired with a "Syntax Error"). */
export function pdfInfo(pdf: Buffer): string {
  const out = spawnSync('pdfinfo', ['-'], { input: pdf });
  const err = out.stderr.toString('utf8');
  if (out.status !== 0 || err.trim() !== '') throw new Error(`pdfinfo: ${err}`);
  return out.stdout.toString('utf8');
}

/**
 * The document catalog as the file's last trailer names it (ISO 32000-1 §7.5.5): the newest
 * definition of its object, as a viewer resolves it after incremental updates.
 */
export function pdfCatalog(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const [, num, gen] = /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(trailer)!;
  const xref = Number(/startxref\s+(\d+)/.exec(trailer)![1]);
  // The newest xref section's entry for the catalog gives its offset.
  const section = text.slice(xref, text.indexOf('trailer', xref));
  const lines = section.split(/\r?\n/);
  let offset: number | undefined;
  for (let i = 1; i < lines.length; i++) {
    const sub = /^(\d+) (\d+)$/.exec(lines[i]!.trim());
    if (!sub) continue;
    const first = Number(sub[1]);
    const n = Number(num);
    if (n >= first && n < first + Number(sub[2])) offset = Number(lines[i + 1 + n - first]!.slice(0, 10));
  }
  if (offset === undefined) throw new Error('catalog not in the last cross-reference section');
  const object = text.slice(offset, text.indexOf('endobj', offset));
  if (!object.startsWith(`${num} ${gen} obj`)) throw new Error(`no object ${num} at offset ${offset}`);
  return object;
}
