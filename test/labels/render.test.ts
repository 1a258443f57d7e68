import { describe, expect, it } from 'vitest';
import { builtInTemplate, CONTINUOUS_MAX_LENGTH_DOTS, renderLabel, STOCKS, type LabelRecord, type Stock, type Template } from '../../src/labels/index.js';
import { inkOf, layoutFor, paint, rasterize } from '../../src/labels/render.js';
import { paperDots } from '../../src/labels/stock.js';
import { ASCENT } from '../../src/labels/text.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { dark, dots, inkBox, inkInMargin } from './ink.js';
import { packRows } from './reference-pack.js';
import { codesOf } from './robustness.js';
import { ASSET, BASIC, FOOTER, HOSTILE, ITEM, LOCATION } from './samples.js';

const tpl = (s: Stock | string) => builtInTemplate(typeof s === 'string' ? s : s.name)!;
const render = (r: LabelRecord, s: Stock | string) => renderLabel(r, tpl(s), { footer: FOOTER });
/** The title's lines as laid out (its text ops are the bold ones). */
const titleLines = (layout: ReturnType<typeof layoutFor>['layout']) =>
  layout.items.filter((i) => i.kind === 'text' && /bold/.test(i.font)).map((i) => (i.kind === 'text' ? i.text : ''));

function expectStockSize(stock: Stock, width: number, height: number): void {
  expect(width).toBe(stock.widthDots);
  if (stock.lengthDots === null) {
    expect(height).toBeGreaterThanOrEqual(stock.minLengthDots);
    expect(height).toBeLessThanOrEqual(CONTINUOUS_MAX_LENGTH_DOTS);
  } else expect(height).toBe(stock.lengthDots);
}

/** What zxing must find on a label: the URL in its 2D code, the asset id's digits in its barcode. */
async function expectCodes(png: Buffer, r: LabelRecord, stock: Stock, where: string): Promise<void> {
  const codes = await decodeBarcodes(png);
  const twoD = codes.filter((c) => c.format === 'QRCode' || c.format === 'DataMatrix');
  expect(twoD.map((c) => c.text), where).toEqual([r.url]);
  // The stock's symbology (a QR code on every stock since 1.5.1; see 'tiny square stock').
  const placed = layoutFor(r, tpl(stock)).layout.items.find((i) => i.kind === 'matrix');
  const symbology = placed?.kind === 'matrix' ? placed.symbol.symbology : undefined;
  expect(symbology, where).toBe(stock.code2d);
  expect(twoD[0]!.format, where).toBe(symbology === 'qr' ? 'QRCode' : 'DataMatrix');
  const bars = codes.filter((c) => c.format === 'Code128').map((c) => c.text);
  // Stock too small for the barcode leaves it out (and says so; see 'asset labels').
  const omitted = r.kind === 'asset' && OMITS_BARS.includes(stock.name);
  expect(bars, where).toEqual(r.kind === 'asset' && !omitted ? [String(r.assetId).padStart(6, '0').padStart(Math.ceil(Math.max(6, String(r.assetId).length) / 3) * 3, '0')] : []);
}

/**
 * Stock where the standard 6-digit asset barcode is left out: its 4-dot bars fit nowhere across the
 * print head beside a 2D code (too short along the feed: 29 mm, 32 mm, 1 and 1.25 in; the squares).
 */
const OMITS_BARS = [
  'brother-ql-62x29',
  'brother-ql-23x23',
  'brother-ql-52x29',
  'dymo-30334',
  'dymo-30332',
  'zebra-2x1-203dpi',
  'zebra-2.25x1.25-203dpi',
  'zebra-3x1-203dpi',
  'zebra-2x1-300dpi',
  'homebox-526x200',
];

describe('every stock and kind', () => {
  for (const stock of STOCKS) {
    it(`${stock.name}: exact 1-bit PNG, codes decode from the pixels`, async () => {
      for (const r of BASIC) {
        const { png, width, height } = render(r, stock);
        expectStockSize(stock, width, height);
        expect(readPngHeader(png)).toEqual({ width, height, bitDepth: 1, colorType: 0 });
        await expectCodes(png, r, stock, `${stock.name} ${r.kind}`);
      }
    });
  }
});

describe('hostile names on every stock', () => {
  for (const stock of STOCKS) {
    it(`${stock.name}: no ink in the outer 1 mm, codes still decode`, async () => {
      const edge = Math.floor(stock.dpi / 25.4);
      for (const { name, record } of HOSTILE) {
        const { png, width, height } = render(record, stock);
        expectStockSize(stock, width, height);
        const d = dots(png);
        // 12-digit ids are left out where even 2-dot bars do not fit (Label-Warnings says so).
        const { content, layout } = layoutFor(record, tpl(stock), { footer: FOOTER });
        // Text stays out of the PNG's outer 1 mm (ink there was cut off); a 2D code may reach into it
        // where the stock's unprinted paper keeps it 1 mm from the label's own edge (layout.ts belowMargin).
        const codes2d = codesOf(layout).filter((c) => c.format !== 'Code128').map((c) => c.symbol);
        expect(inkInMargin(d, edge, codes2d).slice(0, 3), `${name} on ${stock.name}`).toEqual([]);
        const paper = paperDots(stock);
        for (const [x0, y0, x1, y1] of codes2d) {
          expect(Math.min(x0 + paper.across, y0 + paper.along, width - x1 + paper.across, height - y1 + paper.along), `${name} on ${stock.name}: code from the label's edge`).toBeGreaterThanOrEqual(edge);
        }
        const codes = await decodeBarcodes(png);
        if (layout.items.some((i) => i.kind === 'matrix')) expect(codes.some((c) => c.text === record.url), `${name} on ${stock.name}`).toBe(true);
        if (content.code1d && layout.items.some((i) => i.kind === 'bars')) {
          expect(codes.some((c) => c.format === 'Code128' && c.text === content.code1d!.data), `${name} on ${stock.name}`).toBe(true);
        }
      }
    });
  }
});

describe('Code 128 in the pixels', () => {
  for (const stock of STOCKS.filter((s) => !OMITS_BARS.includes(s.name))) {
    it(`${stock.name}: at least 10 modules of white on both ends of the bars`, () => {
      const { layout } = layoutFor(ASSET, tpl(stock), { footer: FOOTER });
      const bars = layout.items.find((i) => i.kind === 'bars');
      if (!bars || bars.kind !== 'bars') throw new Error('no barcode');
      const d = dots(render(ASSET, stock).png);
      // Design (x, y) -> PNG dot (rotated stock is turned clockwise).
      const at = (x: number, y: number) => (layout.rotate90 ? dark(d, layout.height - 1 - y, x) : dark(d, x, y));
      const [runLen, alongRun] = bars.bars === 'vertical' ? [layout.width, (t: number) => at(t, bars.y + (bars.length >> 1))] : [layout.height, (t: number) => at(bars.x + (bars.length >> 1), t)];
      const start = bars.bars === 'vertical' ? bars.x : bars.y;
      const span = bars.symbol.modules * bars.module;
      // The measured ink of the bars starts and ends exactly where the symbol does...
      let first = start;
      while (first > 0 && alongRun(first - 1)) first--;
      expect(alongRun(start)).toBe(true);
      expect(first).toBe(start);
      const end = start + span; // first dot past the last bar
      expect(alongRun(end - 1)).toBe(true);
      // ...and nothing else is printed within 10 modules of it (or the label edge comes first: not allowed).
      let before = 0;
      while (start - before - 1 >= 0 && !alongRun(start - before - 1)) before++;
      let after = 0;
      while (end + after < runLen && !alongRun(end + after)) after++;
      expect(before, 'left/top quiet zone').toBeGreaterThanOrEqual(10 * bars.module);
      expect(after, 'right/bottom quiet zone').toBeGreaterThanOrEqual(10 * bars.module);
      expect(start - 10 * bars.module).toBeGreaterThanOrEqual(0);
      expect(end + 10 * bars.module).toBeLessThanOrEqual(runLen);
    });
  }
});

describe('asset labels', () => {
  it('print every valid asset id on every stock (digits only, set C) or say why not', async () => {
    const big = { ...ASSET, assetId: 999_999_999_999, url: 'https://inventory.example.com/a/999-999-999-999' };
    for (const stock of STOCKS) {
      const r = render(big, stock);
      const codes = await decodeBarcodes(r.png);
      const bar = codes.find((c) => c.format === 'Code128');
      // Where the standard design leaves the barcode out (its rule: 4-dot bars across the head), the id is the title and nothing warns.
      if (bar) expect(bar.text).toBe('999999999999');
      else expect(r.warnings, stock.name).not.toContain('code-omitted');
      expect(codes.some((c) => c.text === big.url) || bar !== undefined, stock.name).toBe(true);
    }
  });

  it('prints the longest valid asset id whole on every stock (12 digit glyphs in the pixels)', () => {
    // A name of dots only and no footer, so every glyph nearly as tall as a digit outside the codes is a digit of the id
    // (the dots of a title grown with large stock are taller than 12 dots, but far shorter than the id's digits).
    const big = { ...ASSET, name: '...', path: [], assetId: 999_999_999_999, url: 'https://inventory.example.com/a/999-999-999-999' };
    const digitHeight = (layout: ReturnType<typeof layoutFor>['layout']) =>
      Math.max(12, ...layout.items.map((i) => (i.kind === 'text' && /\d/.test(i.text) ? Math.round(0.4 * Number(/(\d+)px/.exec(i.font)![1])) : 0)));
    const digits = STOCKS.map((stock) => {
      const { layout } = layoutFor(big, tpl(stock));
      return [stock.name, glyphsOutsideCodes(dots(renderLabel(big, tpl(stock)).png), layout, digitHeight(layout))];
    });
    expect(digits).toEqual(STOCKS.map((s) => [s.name, 12]));
  });

  it('leaves the barcode out only where 4-dot bars fit nowhere across the head, without a warning (the design’s rule), and prints the asset id as the title', async () => {
    for (const stock of STOCKS) {
      const r = render(ASSET, stock);
      const { layout } = layoutFor(ASSET, tpl(stock), { footer: FOOTER });
      const hasBars = layout.items.some((i) => i.kind === 'bars');
      expect(!hasBars, stock.name).toBe(OMITS_BARS.includes(stock.name));
      if (hasBars) continue;
      expect(r.warnings, stock.name).not.toContain('code-omitted');
      const texts = layout.items.filter((i) => i.kind === 'text');
      const size = (f: string) => Number(/(\d+)px/.exec(f)![1]);
      const id = texts.find((i) => i.kind === 'text' && i.text === '000-001');
      expect(id, stock.name).toBeDefined();
      for (const t of texts) if (t.kind === 'text' && id?.kind === 'text') expect(size(t.font), `${stock.name}: ${t.text}`).toBeLessThanOrEqual(size(id.font));
      expect((await decodeBarcodes(r.png)).map((c) => c.text), stock.name).toEqual([ASSET.url]);
    }
  });

  it('the asset id is the same size for every id of a length on a stock, and the largest text', () => {
    for (const stock of STOCKS) {
      const sizes = [1, 2, 777, 999_999].map((assetId) => {
        const { layout } = layoutFor({ ...ASSET, assetId }, tpl(stock));
        const caption = layout.items.find((i) => i.kind === 'text' && i.text.includes('-') && /^\d{3}-\d{3}$/.test(i.text));
        if (!caption || caption.kind !== 'text') return 0;
        const size = (f: string) => Number(/(\d+)px/.exec(f)![1]);
        const others = layout.items.filter((i) => i.kind === 'text' && i !== caption).map((i) => (i.kind === 'text' ? size(i.font) : 0));
        expect(Math.max(0, ...others), stock.name).toBeLessThan(size(caption.font));
        return size(caption.font);
      });
      expect(new Set(sizes).size, stock.name).toBe(1);
    }
  });

  it('draws the standard barcode only with 4-dot bars across the print head (wider where text grows with 4 x 6 in stock)', () => {
    for (const stock of STOCKS) {
      for (const assetId of [1, 999_999_999_999]) {
        const { layout } = layoutFor({ ...ASSET, assetId }, tpl(stock));
        const bars = layout.items.find((i) => i.kind === 'bars');
        if (!bars || bars.kind !== 'bars') continue;
        // 4 dots, grown as the text grows (59 pt against 36: 7 dots) on stock over 62 mm across both sides.
        expect(bars.module, stock.name).toBe(Math.min(stock.widthMm, stock.lengthMm ?? 0) > 62 ? 7 : 4);
        // Across the head: bars along the design's x on rotated stock (turned into the raster), along y otherwise.
        expect(bars.bars, stock.name).toBe(stock.orientation === 'rotated' ? 'vertical' : 'horizontal');
      }
    }
  });

  it('a design that asks for code128 still gets it where a smaller one fits (3-dot bars on 62 x 29 mm)', async () => {
    const design = { ...tpl('brother-ql-62x29').designs.asset, codes: [{ symbology: 'code128' as const, data: '{assetDigits}', caption: '{assetId}' }] };
    const template = { ...tpl('brother-ql-62x29'), designs: { ...tpl('brother-ql-62x29').designs, asset: design } };
    const r = renderLabel(ASSET, template);
    expect((await decodeBarcodes(r.png)).map((c) => c.text)).toEqual(['000001']);
    expect(r.warnings).not.toContain('code-omitted');
  });
});

describe('names', () => {
  it('a name with no visible character prints as [no name] and is reported', () => {
    const blank = render({ ...ITEM, name: '\u200b\u200d\u2060 \ufeff' }, 'brother-ql-62x29');
    const shown = render({ ...ITEM, name: '[no name]' }, 'brother-ql-62x29');
    expect(blank.warnings).toContain('name-not-visible');
    expect(blank.png.equals(shown.png)).toBe(true);
  });

  it('characters no bundled font has are reported; every promised script draws', () => {
    expect(render({ ...ITEM, name: 'Box 𐐷 \uE000' }, 'brother-ql-62x29').missingGlyphs).toEqual([0x10437, 0xe000]);
    for (const { name, record } of HOSTILE) {
      expect(render(record, 'brother-ql-62x29').missingGlyphs, name).toEqual([]);
    }
  });
});

describe('text shortened to fit', () => {
  const long = HOSTILE.find((h) => h.name === 'long')!.record;
  it('warns text-shortened exactly where a line of the record is drawn cut ("…"), on every stock', () => {
    for (const stock of STOCKS) {
      for (const r of [...BASIC, long]) {
        const { layout } = layoutFor(r, tpl(stock), { footer: FOOTER });
        const texts = layout.items.filter((i) => i.kind === 'text').map((i) => (i.kind === 'text' ? i.text : ''));
        // A line ending in "…" that is not the path's locations left out between its first and last (by design).
        const cut = texts.some((t) => t.endsWith('…') || t === '');
        expect(layout.warnings.includes('text-shortened'), `${stock.name} ${r.name}: ${texts.join(' | ')}`).toBe(cut);
      }
    }
  });

  it('the path keeping its first and last locations (Building A › … › Box 5) is the design, not a warning', () => {
    const deep = { ...ITEM, name: 'Drill', path: ['Building A', 'Basement', 'Workshop', 'Tall cabinet on the left', 'Second shelf from the top', 'Blue bin', 'Box 5'] };
    const { layout } = layoutFor(deep, tpl('brother-ql-62x29'));
    const texts = layout.items.filter((i) => i.kind === 'text').map((i) => (i.kind === 'text' ? i.text : ''));
    expect(texts.join(' ')).toMatch(/Building A › … ›/);
    expect(layout.warnings).not.toContain('text-shortened');
  });

  it('a design\'s other line (the description) shortened warns too, and not when it fits', () => {
    const design = { ...tpl('brother-ql-62x29').designs.item, text: [{ role: 'title' as const, source: { field: 'name' as const } }, { role: 'line' as const, source: { field: 'description' as const } }] };
    const template: Template = { ...tpl('brother-ql-62x29'), designs: { ...tpl('brother-ql-62x29').designs, item: design } };
    const r = { ...ITEM, description: 'Eighteen volt brushless motor, two speeds, twenty-one clutch settings, LED light, belt hook and a spare battery in the case' };
    expect(renderLabel(r, template).warnings).toContain('text-shortened');
    expect(renderLabel({ ...r, description: '18 V' }, template).warnings).toEqual([]);
  });
});

describe('scripts without spaces', () => {
  it('break a name only between its words (Intl.Segmenter word boundaries), on every stock', () => {
    const seg = new Intl.Segmenter('th', { granularity: 'word' });
    const names = ['สว่านไร้สายแบตเตอรี่ลิเธียม', 'เครื่องมือช่างไฟฟ้าสำหรับงานหนักในโรงงานอุตสาหกรรม', 'ກະເປົາເຄື່ອງມືຊ່າງໄຟຟ້າ', 'ឧបករណ៍ជួសជុលរថយន្តនិងម៉ូតូ', 'ကိရိယာတန်ဆာပလာများ', '電動ドリルドライバーセット', 'ชุดไขควงไฟฟ้าไร้สายพร้อมแบตเตอรี่สำรองสองก้อน'];
    const bad: string[] = [];
    for (const name of names) {
      const boundaries = new Set([...seg.segment(name)].map((x) => x.index));
      for (const stock of STOCKS) {
        const { layout } = layoutFor({ ...ITEM, name, path: [] }, tpl(stock));
        const title = titleLines(layout);
        // Where each line after the first starts, and where a shortened line is cut, in the name.
        let at = 0;
        for (const line of title) {
          const text = line.replace(/…$/, '');
          expect(name.startsWith(text, at), `${stock.name}: ${title.join(' / ')}`).toBe(true);
          at += text.length;
          if (line.endsWith('…')) break;
          if (!boundaries.has(at) && at < name.length) bad.push(`${stock.name}: ${title.join(' / ')}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('a word too wide for its line', () => {
  it('is cut at a hyphen (a break opportunity), never mid-word, on every stock', () => {
    const name = HOSTILE.find((h) => h.name === 'long')!.record.name;
    const bad: string[] = [];
    for (const stock of STOCKS) {
      const { layout } = layoutFor({ ...ITEM, name, path: [] }, tpl(stock));
      const title = titleLines(layout);
      // The name up to where each line ends (a shortened line: where it is cut) must end at a space or after a hyphen.
      let at = 0;
      for (const line of title) {
        const text = line.replace(/…$/, '');
        expect(name.startsWith(text, at) || name.startsWith(text, at + 1), `${stock.name}: ${title.join(' / ')}`).toBe(true);
        at = name.indexOf(text, at) + text.length;
        if (at < name.length && name[at] !== ' ' && !text.endsWith('-')) bad.push(`${stock.name}: ${title.join(' / ')}`);
        if (line.endsWith('…')) break;
      }
    }
    expect(bad).toEqual([]);
  });

  it('on the 23 mm square, "Heavy-duty…" does not fit one line at 7 pt: the line is "Heavy-…", its ink inside the label', () => {
    const record = { ...ITEM, name: 'Heavy-duty cordless hammer drill', path: [] };
    const { layout } = layoutFor(record, tpl('brother-ql-23x23'));
    expect(layout.items.filter((i) => i.kind === 'text').map((i) => (i.kind === 'text' ? i.text : ''))).toEqual(['Heavy-…']);
    const d = dots(renderLabel(record, tpl('brother-ql-23x23')).png);
    const text = inkBox(d, 0, 0, d.width, 55)!;
    // "Heavy-…" at 7 pt (29 px) bold: narrower than "Heavy-dut…" (~150 dots) was.
    expect(text.x1 - text.x0).toBeLessThan(140);
    // Only the QR code reaches the outer 1 mm (paper lies beyond it there).
    expect(inkInMargin(d, Math.floor(300 / 25.4), codesOf(layout).map((c) => c.symbol))).toEqual([]);
  });
});

describe('tiny square stock', () => {
  // Until 24 November these stocks carried a DataMatrix, which the print-and-scan check showed
  // weaker there than a 4-dot QR code (test/labels/robustness.test.ts says how).
  const qrAt = async (stock: string, record: LabelRecord) => {
    const { layout } = layoutFor(record, tpl(stock));
    const code = layout.items.find((i) => i.kind === 'matrix');
    expect(code?.kind === 'matrix' && code.symbol.symbology, `${stock} ${record.kind}`).toBe('qr');
    expect(code?.kind === 'matrix' && code.module, `${stock} ${record.kind}`).toBeGreaterThanOrEqual(4);
    const codes = await decodeBarcodes(renderLabel(record, tpl(stock)).png);
    expect(codes.filter((c) => c.format === 'QRCode').map((c) => c.text), `${stock} ${record.kind}`).toEqual([record.url]);
  };
  /** Whether the title's first line is cut by its clip box: ink on the clip's last row (a line drawn whole leaves its descent blank there). */
  const nameCut = (record: LabelRecord, template: Template) => {
    const title = layoutFor(record, template).layout.items.find((i) => i.kind === 'text');
    if (title?.kind !== 'text') throw new Error('no title');
    const ink = inkBox(dots(renderLabel(record, template).png), title.clip.x0, title.clip.y0, title.clip.x1, title.clip.y1);
    return ink !== undefined && ink.y1 >= title.clip.y1;
  };
  it.each(['brother-ql-17x54', 'brother-ql-17x87', 'dymo-30332'])('%s: every kind gets a QR code of whole 4-dot (or larger) modules that reads from the pixels', async (stock) => {
    for (const record of BASIC) await qrAt(stock, record);
  });

  it('brother-ql-23x23: every kind gets a QR code; a location or item URL\'s QR code keeps the name whole by letting its quiet zone lie in the paper below the printable area', async () => {
    await qrAt('brother-ql-23x23', ASSET);
    const base = tpl('brother-ql-23x23');
    const paper = paperDots(base.stock).along;
    for (const record of [LOCATION, ITEM]) {
      await qrAt('brother-ql-23x23', record);
      expect(nameCut(record, base), record.kind).toBe(false);
      // The QR code (41 modules of 4 dots with its quiet zone) is taller than the room under the name's line
      // in the PNG: its quiet zone ends in the paper, which is wider than the part outside the PNG.
      const [code] = codesOf(layoutFor(record, base).layout);
      expect(code!.zone[3], record.kind).toBeGreaterThan(base.stock.lengthDots!);
      expect(code!.zone[3] - base.stock.lengthDots!, record.kind).toBeLessThanOrEqual(paper);
      // And the symbol's own last row is ink inside the PNG (measured, not the layout's box).
      const d = dots(renderLabel(record, base).png);
      expect(inkBox(d, code!.symbol[0], code!.symbol[1], code!.symbol[2], base.stock.lengthDots!)!.y1, record.kind).toBe(code!.symbol[3]);
      // A template that names a QR code gets the same room.
      const asked = { ...base, designs: { ...base.designs, [record.kind]: { ...base.designs[record.kind], codes: [{ symbology: 'qr' as const, data: '{url}' }] } } };
      expect(nameCut(record, asked), `${record.kind} with a QR code`).toBe(false);
    }
  });

  it('dymo-30332: the name shows on every kind, the asset label included', () => {
    for (const record of BASIC) {
      const lines = layoutFor(record, tpl('dymo-30332')).layout.items.flatMap((i) => (i.kind === 'text' ? [i.text] : []));
      expect(lines.join(' '), record.kind).toContain(record.name);
    }
  });

  it('a 12-digit asset id, whole in two lines, leaves no room for a QR code on 23 mm stock: the smaller DataMatrix carries the URL', async () => {
    const big = { ...ASSET, assetId: 999_999_999_999, url: 'https://inventory.example.com/a/999-999-999-999' };
    for (const stock of ['brother-ql-23x23']) {
      const { layout } = layoutFor(big, tpl(stock));
      const code = layout.items.find((i) => i.kind === 'matrix');
      expect(code?.kind === 'matrix' && code.symbol.symbology, stock).toBe('datamatrix');
      const texts = layout.items.flatMap((i) => (i.kind === 'text' ? [i.text] : []));
      expect(texts.slice(0, 2).join(''), stock).toBe('999-999-999-999');
      expect((await decodeBarcodes(renderLabel(big, tpl(stock)).png)).map((c) => c.text), stock).toContain(big.url);
      // A template that asks for QR gets QR: only the stock's own choice gives way.
      const asked = { ...tpl(stock), designs: { ...tpl(stock).designs, asset: { ...tpl(stock).designs.asset, codes: [{ symbology: 'qr' as const, data: '{url}' }] } } };
      const own = layoutFor(big, asked).layout.items.find((i) => i.kind === 'matrix');
      expect(own?.kind === 'matrix' && own.symbol.symbology, stock).toBe('qr');
    }
  });
});

describe('scripts without spaces: words the dictionary does not know', () => {
  it('a loanword the segmenter splits into fragments (ลิ|เธี|ยม, ยู|เอ|สบี) is never broken across lines', () => {
    const words = ['ลิเธียม', 'ยูเอสบี', 'มือถือ'];
    const names = ['สว่านไร้สายแบตเตอรี่ลิเธียม', 'สายชาร์จยูเอสบีและแบตเตอรี่ลิเธียมไอออน', 'ที่ชาร์จโทรศัพท์มือถือในรถยนต์'];
    const bad: string[] = [];
    for (const name of names) {
      for (const stock of STOCKS) {
        const { layout } = layoutFor({ ...ITEM, name, path: [] }, tpl(stock));
        const title = titleLines(layout);
        let at = 0;
        for (const line of title.slice(0, -1)) {
          if (line.endsWith('…')) break;
          at += line.length;
          const inside = words.some((w) => {
            const start = name.indexOf(w);
            return start >= 0 && at > start && at < start + w.length;
          });
          if (inside) bad.push(`${stock.name}: ${title.join(' / ')}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('lines are spaced by their real ink', () => {
  it('stacked combining marks and Thai vowels never reach the neighbouring line or past the text box', () => {
    for (const name of ['combining', 'thai', 'indic']) {
      const record = HOSTILE.find((h) => h.name === name)!.record;
      for (const stock of ['brother-ql-62x29', 'brother-ql-17x54', 'brother-ql-62x100', 'zebra-2x1-203dpi']) {
        const { layout } = layoutFor(record, tpl(stock), { footer: FOOTER });
        const lines = layout.items.filter((i) => i.kind === 'text' && i.rotate === 0).map((i) => (i.kind === 'text' ? { ...i, ink: inkOf(i.font, i.text) } : undefined)!);
        for (const l of lines) {
          if (l.y + l.ink.descent > l.clip.y1) continue; // the box itself is cut short (text clipped at the smallest size)
          // Inside its clip box. Where the lines overflow it at the smallest size, the marks above the
          // box's first line are clipped instead: its letters (the font's ascent) stay inside.
          const first = lines.every((o) => o.clip !== l.clip || o.y >= l.y);
          const ascent = first ? Math.min(l.ink.ascent, ASCENT * Number(/(\d+)px/.exec(l.font)![1])) : l.ink.ascent;
          expect(l.y - ascent, `${name} on ${stock}: ${l.text}`).toBeGreaterThanOrEqual(l.clip.y0 - 1);
        }
        for (let i = 1; i < lines.length; i++) {
          const [a, b] = [lines[i - 1]!, lines[i]!];
          if (a.clip !== b.clip || b.y <= a.y) continue;
          expect(a.y + a.ink.descent, `${name} on ${stock}: "${a.text}" above "${b.text}"`).toBeLessThanOrEqual(b.y - b.ink.ascent + 1);
        }
      }
    }
  });
});

describe('stacked marks taller than the line on tiny stock', () => {
  // The same name without its marks has the same advances, so its letters land on the same dots:
  // each of them must be ink on the marked label too (the marks give way, not the letters).
  // Before, the line was placed by its marks' ink and clipped at the box: the letters were cut in half.
  // On the 23 mm square both are drawn at the smallest size (elsewhere the plain name grows).
  it.each(['brother-ql-23x23'])('%s: the letters of a name under stacked marks are drawn whole', (stock) => {
    const record = HOSTILE.find((h) => h.name === 'combining')!.record;
    const plain = { ...record, name: record.name.normalize('NFD').replace(/\p{M}/gu, ''), path: [] };
    const marked = { ...record, path: [] };
    const titleFont = (r: LabelRecord) => layoutFor(r, tpl(stock)).layout.items.flatMap((i) => (i.kind === 'text' && /bold/.test(i.font) ? [i.font] : []))[0];
    expect(titleFont(marked), 'both drawn at the same size').toBe(titleFont(plain));
    const [p, z] = [dots(renderLabel(plain, tpl(stock)).png), dots(renderLabel(marked, tpl(stock)).png)];
    const [code] = codesOf(layoutFor(plain, tpl(stock)).layout);
    const inCode = (x: number, y: number) => x >= code!.zone[0] && x < code!.zone[2] && y >= code!.zone[1] && y < code!.zone[3];
    let best = 0;
    // A dot or two of difference in where the line sits is allowed.
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        let [letters, kept] = [0, 0];
        for (let y = 0; y < p.height; y++) {
          for (let x = 0; x < p.width; x++) {
            if (inCode(x, y) || !dark(p, x, y)) continue;
            letters++;
            const [mx, my] = [x + dx, y + dy];
            if (mx >= 0 && my >= 0 && mx < z.width && my < z.height && dark(z, mx, my)) kept++;
          }
        }
        best = Math.max(best, kept / letters);
      }
    }
    expect(best).toBeGreaterThan(0.9);
  });
});

describe('text fills its space', () => {
  it('grows continuous tape before shrinking text, up to its maximum', () => {
    const short = render(LOCATION, 'brother-ql-62');
    const long = render(HOSTILE[0]!.record, 'brother-ql-62');
    expect(long.height).toBeGreaterThan(short.height);
    const huge = render({ ...ITEM, name: 'Line '.repeat(400) }, 'brother-ql-62');
    expect(huge.height).toBeLessThanOrEqual(CONTINUOUS_MAX_LENGTH_DOTS);
  });

  it('a short name is drawn large on large stock (no empty thirds)', () => {
    for (const name of ['brother-ql-29x90', 'brother-ql-62x29', 'zebra-4x6-203dpi']) {
      const { layout } = layoutFor(LOCATION, tpl(name));
      const title = layout.items.find((i) => i.kind === 'text' && i.text === 'Shelf 3');
      const px = title && title.kind === 'text' ? Number(/(\d+)px/.exec(title.font)![1]) : 0;
      expect(px / (layout.stock.dpi / 72), name).toBeGreaterThanOrEqual(20); // points
    }
  });

  it('the title grows with 4 x 6 in stock (102 mm across): its letters over 13 mm tall in the pixels, the path at its usual size', () => {
    const points = (font: string, dpi: number) => Number(/(\d+)px/.exec(font)![1]) / (dpi / 72);
    for (const stock of STOCKS) {
      const { layout } = layoutFor(ITEM, tpl(stock), { footer: FOOTER });
      const texts = layout.items.filter((i) => i.kind === 'text');
      const title = texts.filter((i) => /bold/.test(i.font));
      const path = texts.find((i) => i.text.startsWith('Garage'));
      const large = Math.min(stock.widthMm, stock.lengthMm ?? 0) > 62;
      for (const t of title) expect(points(t.font, stock.dpi), stock.name)[large ? 'toBeGreaterThan' : 'toBeLessThanOrEqual'](large ? 50 : 36);
      if (path) expect(points(path.font, stock.dpi), stock.name).toBeLessThanOrEqual(23);
      if (!large) continue;
      // The first title line's ink, read back from the PNG (portrait stock: design rows are PNG rows).
      const first = title[0]!;
      const size = Number(/(\d+)px/.exec(first.font)![1]);
      const d = dots(render(ITEM, stock).png);
      const ink = inkBox(d, 0, Math.max(0, first.y - Math.round(1.1 * size)), d.width, first.y + 1)!;
      expect(((ink.y1 - ink.y0) / stock.dpi) * 25.4, stock.name).toBeGreaterThan(13);
    }
  });
});

describe('determinism and the fast raster', () => {
  it('renders the same record to byte-identical PNGs, also after other labels', () => {
    for (const name of ['brother-ql-62x29', 'brother-ql-29x90', 'zebra-4x6-203dpi']) {
      const first = render(ASSET, name).png;
      render(HOSTILE[0]!.record, name);
      render(ITEM, 'brother-ql-62');
      expect(render(ASSET, name).png.equals(first)).toBe(true);
    }
  });

  it('sets the same pixels as Cairo drawing the whole label (codes included) and thresholding it', () => {
    for (const stock of STOCKS) {
      for (const r of [...BASIC, ...HOSTILE.slice(0, 4).map((h) => h.record)]) {
        const { layout } = layoutFor(r, tpl(stock), { footer: FOOTER });
        const fast = rasterize(layout);
        const cairo = packRows(paint(layout).toBuffer('raw'), layout.width, layout.height, layout.rotate90);
        expect(fast.equals(cairo), `${stock.name} ${r.name}`).toBe(true);
        const d = dots(render(r, stock).png);
        expect(inkBox(d), 'not blank').toBeDefined();
      }
    }
  });
});

/**
 * Connected ink blobs at least `minHeight` dots tall (across the text's lines: a dash or an
 * ellipsis dot is not) outside the layout's code symbols, counted in the PNG's pixels.
 */
function glyphsOutsideCodes(d: ReturnType<typeof dots>, layout: ReturnType<typeof layoutFor>['layout'], minHeight: number): number {
  const codeBoxes = layout.items.flatMap((i) => {
    if (i.kind === 'matrix') return [{ x0: i.x, y0: i.y, x1: i.x + i.symbol.cols * i.module, y1: i.y + i.symbol.rows * i.module }];
    if (i.kind === 'bars') {
      const run = i.symbol.modules * i.module;
      return [i.bars === 'vertical' ? { x0: i.x, y0: i.y, x1: i.x + run, y1: i.y + i.length } : { x0: i.x, y0: i.y, x1: i.x + i.length, y1: i.y + run }];
    }
    return [];
  });
  // Design (x, y) is output (height - 1 - y, x) on rotated stock.
  const inCode = (x: number, y: number) => {
    const [dx, dy] = layout.rotate90 ? [y, layout.height - 1 - x] : [x, y];
    return codeBoxes.some((b) => dx >= b.x0 && dx < b.x1 && dy >= b.y0 && dy < b.y1);
  };
  const seen = new Uint8Array(d.width * d.height);
  let count = 0;
  for (let y = 0; y < d.height; y++) {
    for (let x = 0; x < d.width; x++) {
      if (seen[y * d.width + x] || !dark(d, x, y) || inCode(x, y)) continue;
      let y0 = y;
      let y1 = y;
      let x0 = x;
      let x1 = x;
      const stack = [[x, y]];
      seen[y * d.width + x] = 1;
      while (stack.length) {
        const [px, py] = stack.pop()!;
        y0 = Math.min(y0, py!);
        y1 = Math.max(y1, py!);
        x0 = Math.min(x0, px!);
        x1 = Math.max(x1, px!);
        for (const [nx, ny] of [[px! + 1, py!], [px! - 1, py!], [px!, py! + 1], [px!, py! - 1]]) {
          if (nx! < 0 || ny! < 0 || nx! >= d.width || ny! >= d.height || seen[ny! * d.width + nx!] || !dark(d, nx!, ny!) || inCode(nx!, ny!)) continue;
          seen[ny! * d.width + nx!] = 1;
          stack.push([nx!, ny!]);
        }
      }
      // A digit is about as wide as tall, whichever way its text is turned; a dash or a dot is not this large or this square.
      const [short, long] = [Math.min(y1 - y0, x1 - x0) + 1, Math.max(y1 - y0, x1 - x0) + 1];
      if (long >= minHeight && short >= 0.6 * long) count++;
    }
  }
  return count;
}
