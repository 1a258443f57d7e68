/**
 * Sheets as a printer would get them: each sheet product rendered to PDF,
 * rasterised by poppler at 300 dpi, and measured: every label's ink inside its
 * cell to within 0.5 mm, empty cells empty, every code decoding to its record,
 * start-at-N and copies placing the right labels in the right cells.
 */
import { describe, expect, it } from 'vitest';
import { builtInTemplate, renderLabel, type LabelDesign, type LabelRecord, type Stock, type Template } from '../../src/labels/index.js';
import { inkOf, layoutFor } from '../../src/labels/render.js';
import { renderSheetPdf, sheetCellStock } from '../../src/labels/sheet-pdf.js';
import { findSheetProduct, sheetGeometry, SHEET_PRODUCTS, type Cell, type SheetProduct } from '../../src/labels/sheets.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { cropRgba, pdfCatalog, pdfFonts, pdfImageCount, pdfInfo, pdfPageCount, rasterizePdf, type GrayPage } from '../helpers/pdf.js';
import { dots, inkBox } from './ink.js';
import { ASSET, ITEM, LOCATION } from './samples.js';

const TEMPLATE = builtInTemplate('brother-ql-62x29')!;
const TOLERANCE_MM = 0.5;
const INK = 128;

/** Three records whose codes tell them apart. */
const RECORDS: LabelRecord[] = [LOCATION, ITEM, { ...ASSET, assetId: 42, url: ASSET.url.replace('000-001', '000-042') }];

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Ink per cell (with the tolerance around it): dark pixels, their bounding box in mm, and dark pixels in no cell. */
function inkByCell(page: GrayPage, cells: readonly Cell[]): { counts: number[]; boxes: (Box | undefined)[]; stray: { x: number; y: number }[] } {
  const px = (mm: number) => (mm / 25.4) * page.dpi;
  const tol = px(TOLERANCE_MM);
  const boxes = cells.map((c) => ({ x0: px(c.x) - tol, y0: px(c.y) - tol, x1: px(c.x + c.width) + tol, y1: px(c.y + c.height) + tol }));
  const counts = cells.map(() => 0);
  const ink: (Box | undefined)[] = cells.map(() => undefined);
  const stray: { x: number; y: number }[] = [];
  for (let y = 0; y < page.height; y++) {
    for (let x = 0; x < page.width; x++) {
      if (page.data[y * page.width + x]! >= INK) continue;
      const i = boxes.findIndex((b) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1);
      if (i < 0) {
        stray.push({ x, y });
        continue;
      }
      counts[i]!++;
      const b = ink[i];
      ink[i] = b ? { x0: Math.min(b.x0, x), y0: Math.min(b.y0, y), x1: Math.max(b.x1, x + 1), y1: Math.max(b.y1, y + 1) } : { x0: x, y0: y, x1: x + 1, y1: y + 1 };
    }
  }
  const mm = (v: number) => (v / page.dpi) * 25.4;
  return { counts, boxes: ink.map((b) => b && { x0: mm(b.x0), y0: mm(b.y0), x1: mm(b.x1), y1: mm(b.y1) }), stray };
}

/** What the codes in one cell say: the 2D code's URL, and an asset's digits. */
async function codesIn(page: GrayPage, cell: Cell): Promise<string[]> {
  const px = (mm: number) => Math.round((mm / 25.4) * page.dpi);
  const pad = px(1);
  const codes = await decodeBarcodes(cropRgba(page, px(cell.x) - pad, px(cell.y) - pad, px(cell.width) + 2 * pad, px(cell.height) + 2 * pad));
  return codes.map((c) => c.text).sort();
}

/**
 * Where a record's ink must be on the page, mm: the ink of the same label rendered by the
 * engine as a PNG (same layout, same stock), placed where the sheet puts the label in its cell.
 */
function expectedInk(record: LabelRecord, template: Template, stock: Stock, cell: Cell): Box {
  const label = dots(renderLabel(record, { ...template, stock }).png);
  const b = inkBox(label)!;
  const mm = (v: number) => (v / stock.dpi) * 25.4;
  const x = cell.x + (cell.width - mm(label.width)) / 2;
  const y = cell.y + (cell.height - mm(label.height)) / 2;
  return { x0: x + mm(b.x0), y0: y + mm(b.y0), x1: x + mm(b.x1), y1: y + mm(b.y1) };
}

/**
 * A sheet cell (page printer) keeps the asset barcode where it leaves the name a line (not on
 * Avery L7656's 11 mm); a label-per-page page is the thermal stock's label, which leaves it out on 62 x 29 mm.
 */
const expected = (r: LabelRecord, stock: Stock) =>
  (r.kind === 'asset' && (stock.pagePrinter ? stock.name !== 'avery-l7656' : stock.name !== 'brother-ql-62x29') ? [String(r.assetId).padStart(6, '0'), r.url] : [r.url]).sort();

async function checkSheet(product: SheetProduct, labels: { record: LabelRecord; copies: number }[], startAt: number, template = TEMPLATE): Promise<void> {
  const { pdf, pages, labels: count } = await renderSheetPdf(labels, { product, template, startAt });
  const order = labels.flatMap(({ record, copies }) => Array.from({ length: copies }, () => record));
  expect(count).toBe(order.length);
  expect(pdfPageCount(pdf)).toBe(pages);
  // Cells laid out at 600 dpi (labels under 12 mm tall) are checked at the density they are made for.
  const rasters = rasterizePdf(pdf, sheetCellStock(product, template).dpi === 600 ? 600 : 300);
  expect(rasters).toHaveLength(pages);
  let next = 0;
  for (const [p, page] of rasters.entries()) {
    // label-per-page: the page is the label's paper (the stock's size, as the PNG is turned), the printable area centred on it.
    const stock = sheetCellStock(product, template);
    const geometry = sheetGeometry(product, { width: stock.widthMm, height: stock.lengthMm ?? (stock.minLengthDots / stock.dpi) * 25.4 });
    // The page is the product's paper, to the whole point (PDF pages from Cairo are whole points).
    const slack = page.dpi / 72 / 2 + 1;
    expect(Math.abs(page.width - (geometry.pageWidthMm / 25.4) * page.dpi)).toBeLessThanOrEqual(slack);
    expect(Math.abs(page.height - (geometry.pageHeightMm / 25.4) * page.dpi)).toBeLessThanOrEqual(slack);
    const { counts, boxes, stray } = inkByCell(page, geometry.cells);
    expect(stray.slice(0, 5), `${product.name} page ${p + 1}: ink outside every cell`).toEqual([]);
    const first = p === 0 ? startAt - 1 : 0;
    for (const [i, cell] of geometry.cells.entries()) {
      const record = i >= first && next < order.length ? order[next++] : undefined;
      const where = `${product.name} page ${p + 1} position ${i + 1}`;
      if (!record) {
        expect(counts[i], `${where} should be empty`).toBe(0);
        continue;
      }
      expect(counts[i], `${where} should hold a label`).toBeGreaterThan(0);
      const want = expectedInk(record, template, stock, cell);
      const got = boxes[i]!;
      // Sheet cells keep 1.6 mm of paper around their ink (a page printer lands a little off the die-cut); a pixel's slack.
      if (stock.pagePrinter) {
        const gaps = [got.x0 - cell.x, got.y0 - cell.y, cell.x + cell.width - got.x1, cell.y + cell.height - got.y1];
        expect(Math.min(...gaps), `${where}: ink ${gaps.map((g) => g.toFixed(2)).join(', ')} mm from the label's edges`).toBeGreaterThanOrEqual(1.5);
      }
      for (const edge of ['x0', 'y0', 'x1', 'y1'] as const) {
        expect(Math.abs(got[edge] - want[edge]), `${where}: ink edge ${edge} at ${got[edge].toFixed(2)} mm, label's at ${want[edge].toFixed(2)} mm`).toBeLessThanOrEqual(TOLERANCE_MM);
      }
      expect(await codesIn(page, cell), where).toEqual(expected(record, stock));
    }
  }
  expect(next).toBe(order.length);
}

describe('sheet products', () => {
  for (const product of SHEET_PRODUCTS) {
    it(`${product.name}: labels inside their cells, codes decode to their records`, async () => {
      const perPage = product.columns * product.rows;
      // Start at position 2 (one used label), with enough copies to spill onto a second page where a page is small.
      const copies = Math.max(1, Math.ceil(perPage / RECORDS.length));
      await checkSheet(product, RECORDS.map((record) => ({ record, copies })), Math.min(2, perPage));
    }, 120_000);
  }
});

describe('start at N and copies', () => {
  it('12 labels from position 15 of 21: 7 on the first page, 5 on the second', async () => {
    await checkSheet(findSheetProduct('avery-l7160')!, RECORDS.map((record) => ({ record, copies: 4 })), 15);
  }, 120_000);

  it('copies of one record fill consecutive cells', async () => {
    await checkSheet(findSheetProduct('avery-l7163')!, [{ record: ITEM, copies: 5 }, { record: LOCATION, copies: 1 }], 1);
  }, 120_000);

  it('guides outline every cell without touching the labels', async () => {
    const product = findSheetProduct('avery-5163')!;
    const { pdf } = await renderSheetPdf([{ record: LOCATION, copies: 1 }], { product, template: TEMPLATE, guides: true, startAt: 3 });
    const [page] = rasterizePdf(pdf, 300);
    const geometry = sheetGeometry(product);
    const px = (mm: number) => Math.round((mm / 25.4) * 300);
    // The middle of each cell's top edge is drawn (light grey), the empty cell's inside is white.
    for (const cell of geometry.cells) expect(page!.data[px(cell.y) * page!.width + px(cell.x + cell.width / 2)]).toBeLessThan(230);
    const empty = geometry.cells[0]!;
    expect(page!.data[px(empty.y + empty.height / 2) * page!.width + px(empty.x + empty.width / 2)]).toBe(255);
    expect(await codesIn(page!, geometry.cells[2]!)).toEqual([LOCATION.url]);
  }, 60_000);

  it('label-per-page on tall narrow stock: each page is the label as the PNG is (turned)', async () => {
    await checkSheet(findSheetProduct('label-per-page')!, RECORDS.map((record) => ({ record, copies: 1 })), 1, builtInTemplate('brother-ql-29x90')!);
  }, 60_000);

  it('vector: text in embedded subset fonts, codes as rectangles, no raster images', async () => {
    const { pdf } = await renderSheetPdf(RECORDS.map((record) => ({ record, copies: 1 })), { product: findSheetProduct('avery-l7160')!, template: TEMPLATE });
    const fonts = pdfFonts(pdf);
    expect(fonts.length).toBeGreaterThan(0);
    for (const f of fonts) expect(f, 'embedded and subset').toMatch(/^[A-Z]{6}\+Noto\S+\s.*\byes\s+yes\b/);
    expect(pdfImageCount(pdf)).toBe(0);
  });

  it('label-per-page: each page is the stock, not its printable area (Brother 62 x 29, DYMO 30252 turned)', async () => {
    for (const [name, w, h] of [['brother-ql-62x29', 62, 29], ['dymo-30252', 28, 89]] as const) {
      const { pdf } = await renderSheetPdf([{ record: ITEM, copies: 1 }], { product: findSheetProduct('label-per-page')!, template: builtInTemplate(name)! });
      const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(pdfInfo(pdf))!;
      // Whole points (Cairo): within 0.36 mm.
      expect(Math.abs((Number(size[1]) / 72) * 25.4 - w), `${name} width`).toBeLessThan(0.36);
      expect(Math.abs((Number(size[2]) / 72) * 25.4 - h), `${name} height`).toBeLessThan(0.36);
    }
  });

  it('asks viewers to print at actual size (/PrintScaling /None), and stays a valid PDF', async () => {
    const { pdf } = await renderSheetPdf([{ record: ITEM, copies: 30 }], { product: findSheetProduct('avery-l7160')!, template: TEMPLATE });
    expect(pdfCatalog(pdf)).toMatch(/\/ViewerPreferences\s*<<\s*\/PrintScaling\s*\/None\s*>>/);
    // poppler reads the updated file without repairing it, both pages and the title intact.
    const info = pdfInfo(pdf);
    expect(info).toMatch(/^Pages:\s+2$/m);
    expect(info).toMatch(/^Title:\s+Labels \(avery-l7160\)$/m);
    expect(rasterizePdf(pdf, 30)).toHaveLength(2);
  });

  it('a sheet past its deadline stops', async () => {
    await expect(
      renderSheetPdf([{ record: ITEM, copies: 50 }], { product: findSheetProduct('avery-l7651')!, template: TEMPLATE, deadline: Date.now() - 1, yieldEvery: 5 }),
    ).rejects.toThrow(/time limit/);
  });
});

/**
 * Text size, label by label: each text's ink (its width and height, inside the box the layout
 * gives it) on every label of the sheet, against the same text on the same label as a PNG. The
 * sheet's cells are laid out at the PNG's density, so the two are measured in the same dots.
 */
describe('text on every label of a sheet is the size it is on the PNG label', () => {
  /** Ink box (width x height, dots) of each text item of the record's label: on the PNG, and in the sheet cell. */
  function textInk(page: GrayPage, record: LabelRecord, template: Template, stock: Stock, cell: Cell): { text: string; png: [number, number]; sheet: [number, number] }[] {
    const { layout } = layoutFor(record, { ...template, stock });
    const label = dots(renderLabel(record, { ...template, stock }).png);
    const dpi = stock.dpi;
    // Where the label's top-left dot lands on the page raster (same density).
    const ox = ((cell.x + (cell.width - (label.width / dpi) * 25.4) / 2) / 25.4) * page.dpi;
    const oy = ((cell.y + (cell.height - (label.height / dpi) * 25.4) / 2) / 25.4) * page.dpi;
    const out: { text: string; png: [number, number]; sheet: [number, number] }[] = [];
    for (const t of layout.items) {
      if (t.kind !== 'text') continue;
      const { x0, y0, x1, y1 } = t.clip;
      const png = inkBox(label, Math.max(0, x0), Math.max(0, y0), Math.min(label.width, x1), Math.min(label.height, y1));
      let s: Box | undefined;
      for (let y = Math.round(oy + y0); y < Math.round(oy + y1); y++) {
        for (let x = Math.round(ox + x0); x < Math.round(ox + x1); x++) {
          if (page.data[y * page.width + x]! >= INK) continue;
          s = s ? { x0: Math.min(s.x0, x), y0: Math.min(s.y0, y), x1: Math.max(s.x1, x + 1), y1: Math.max(s.y1, y + 1) } : { x0: x, y0: y, x1: x + 1, y1: y + 1 };
        }
      }
      out.push({ text: t.text, png: png ? [png.x1 - png.x0, png.y1 - png.y0] : [0, 0], sheet: s ? [s.x1 - s.x0, s.y1 - s.y0] : [0, 0] });
    }
    return out;
  }

  /** A saved design's shape: the name alone, at a fixed 10 pt, no codes. */
  const nameOnly: LabelDesign = { text: [{ role: 'title', source: { field: 'name' } }], codes: [], textPt: { min: 10, max: 10 } };
  const NAME_10PT: Template = { name: 'name-10pt', stock: TEMPLATE.stock, designs: { location: nameOnly, item: nameOnly, asset: nameOnly } };
  const ASSETS = Array.from({ length: 6 }, (_, i) => ({ ...ASSET, assetId: i + 1, url: ASSET.url.replace('000-001', `000-00${i + 1}`) }));

  const cases: [string, Template, LabelRecord[], number][] = [
    ['avery-5167', TEMPLATE, [ITEM, ...ASSETS, LOCATION], 2],
    ['avery-l7656', TEMPLATE, [...ASSETS, ITEM], 2],
    ['avery-l7160', NAME_10PT, [ITEM, LOCATION, ASSET], 3],
    ['avery-l7651', TEMPLATE, [LOCATION, ASSET, ITEM], 2],
  ];
  for (const [name, template, records, copies] of cases) {
    it(`${name}: ${records.length} records x ${copies} copies, ${template.name}`, async () => {
      const product = findSheetProduct(name)!;
      const stock = sheetCellStock(product, template);
      const { pdf } = await renderSheetPdf(records.map((record) => ({ record, copies })), { product, template });
      const [page] = rasterizePdf(pdf, stock.dpi);
      const cells = sheetGeometry(product).cells;
      const order = records.flatMap((r) => Array.from({ length: copies }, () => r));
      let texts = 0;
      for (const [i, record] of order.entries()) {
        for (const t of textInk(page!, record, template, stock, cells[i]!)) {
          texts++;
          const where = `${name} label ${i + 1} "${t.text}": ${t.sheet.join(' x ')} dots on the sheet, ${t.png.join(' x ')} on the PNG`;
          expect(t.png[1], where).toBeGreaterThan(0);
          // Within 2 dots (0.17 mm at 300 dpi) either way: placement on the page and PDF rounding.
          expect(Math.abs(t.sheet[0] - t.png[0]), where).toBeLessThanOrEqual(2);
          expect(Math.abs(t.sheet[1] - t.png[1]), where).toBeLessThanOrEqual(2);
        }
      }
      expect(texts).toBeGreaterThanOrEqual(order.length);
    }, 120_000);
  }
});

/**
 * Every label's place against LibreOffice's label database (extras/source/labels/labels.xml in
 * LibreOffice's core repository: `measure` is pitch x, pitch y, width, height, left, top, columns,
 * rows, in 1/100 mm), copied here as published, so the data in sheets.ts cannot drift from it.
 */
describe('sheet geometry is LibreOffice’s', () => {
  const LIBREOFFICE: Record<string, string> = {
    'avery-l7160': 'S;6604;3810;6350;3810;720;1515;3;7;21000;29700',
    'avery-l7163': 'S;10160;3810;9906;3810;467;1515;2;7;21000;29700',
    'avery-l7651': 'S;4064;2117;3810;2117;467;1090;5;13;21000;29700',
    'avery-l7656': 'S;5067;1270;4600;1111;600;1595;4;21;21000;29700',
    'avery-5160': 'S;6985;2540;6668;2540;478;1270;3;10;21590;27940',
    'avery-5163': 'S;10636;5080;10160;5080;396;1270;2;5;21590;27940',
    'avery-5167': 'S;5240;1270;4445;1270;714;1270;4;20;21590;27940',
  };
  for (const [name, measure] of Object.entries(LIBREOFFICE)) {
    it(`${name}: every label within 0.05 mm of LibreOffice's`, () => {
      const f = measure.split(';').slice(1).map(Number);
      const [px, py, w, h, left, top] = f.slice(0, 6).map((v) => v / 100) as [number, number, number, number, number, number];
      const [cols, rows] = [f[6]!, f[7]!];
      const [pw, ph] = [f[8]! / 100, f[9]! / 100];
      const g = sheetGeometry(findSheetProduct(name)!);
      expect([g.pageWidthMm, g.pageHeightMm]).toEqual([pw, ph]);
      expect(g.cells).toHaveLength(cols * rows);
      for (const [i, c] of g.cells.entries()) {
        const [col, row] = [i % cols, Math.floor(i / cols)];
        const want = { x: left + col * px, y: top + row * py, width: w, height: h };
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(c[k] - want[k]), `${name} label ${i + 1} ${k}: ${c[k].toFixed(2)} mm, LibreOffice ${want[k].toFixed(2)} mm`).toBeLessThanOrEqual(0.05);
      }
    });
  }
});

/** No text is cut off by its box on any sheet product (the L7656 asset name was drawn in an 18-dot band: only the tops of its letters printed). */
describe('text is whole on every sheet product', () => {
  for (const product of SHEET_PRODUCTS.filter((p) => p.page !== 'label')) {
    it(`${product.name}: every line's ink inside its box, the name on every label`, () => {
      const stock = sheetCellStock(product, TEMPLATE);
      for (const record of [...RECORDS, { ...ASSET, assetId: 999_999_999_999, url: 'https://inventory.example.com/a/999-999-999-999' }]) {
        const { layout } = layoutFor(record, { ...TEMPLATE, stock });
        const texts = layout.items.filter((i) => i.kind === 'text');
        // The name whole on the sample records (a 12-digit asset id leaves it less room: only its ink is checked).
        const words = texts.map((t) => (t.kind === 'text' ? t.text : '')).join(' ');
        if (RECORDS.includes(record)) expect(words, `${product.name} ${record.kind}: the name`).toMatch(/Cordless drill|Cordless\s+drill|Shelf 3/);
        for (const t of texts) {
          if (t.kind !== 'text' || t.rotate !== 0) continue;
          const ink = inkOf(t.font, t.text);
          const where = `${product.name} ${record.kind} "${t.text}": ink ${Math.round(t.y - ink.ascent)}..${Math.round(t.y + ink.descent)}, box ${t.clip.y0}..${t.clip.y1}`;
          expect(t.y - ink.ascent, where).toBeGreaterThanOrEqual(t.clip.y0 - 1);
          expect(t.y + ink.descent, where).toBeLessThanOrEqual(t.clip.y1 + 1);
        }
      }
    });
  }
});
