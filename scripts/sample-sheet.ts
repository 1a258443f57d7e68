/**
 * Contact sheets for looking at labels: every stock x kind x a hostile-name
 * set (long, RTL, CJK, Thai, Indic, emoji, combining marks, zero-width
 * characters, long numbers), one PNG per stock in out/samples/, each label
 * on its paper (the unprinted edge around the printable area, outlined in blue;
 * the die-cut edge in red) and captioned. Run: npm run samples
 *
 * It also draws the integration labels docs/integrations.md shows (docs/integrations/):
 * what Homebox gets for an item and an asset, and what Grocy's webhook prints.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createCanvas, loadImage } from 'canvas';
import { builtInTemplate, renderLabel, STOCKS, type LabelRecord } from '../src/labels/index.js';
import { paperDots } from '../src/labels/stock.js';
import { BASIC, FOOTER, HOSTILE } from '../test/labels/samples.js';
import { grocyRecord, grocyTemplate, homeboxRecord } from '../src/api/integration-handlers.js';

const dir = new URL('../out/samples/', import.meta.url);
mkdirSync(dir, { recursive: true });
const cases: { name: string; record: LabelRecord }[] = [...BASIC.map((r) => ({ name: r.kind, record: r })), ...HOSTILE];
let n = 0;
for (const stock of STOCKS) {
  const template = builtInTemplate(stock.name)!;
  const pngs = await Promise.all(
    cases.map(async ({ name, record }) => {
      const r = renderLabel(record, template, { footer: FOOTER });
      return { name, img: await loadImage(r.png), warnings: r.warnings };
    }),
  );
  const cols = 4;
  // Each label on its paper: the unprinted edge around the printable area (stock.ts paperDots),
  // where a 2D code's quiet zone may lie (the 23 mm square), white inside the red die-cut edge.
  const paper = paperDots(stock);
  const cellW = Math.max(...pngs.map((p) => p.img.width)) + 2 * paper.across + 20;
  const cellH = Math.max(...pngs.map((p) => p.img.height)) + 2 * paper.along + 40;
  const rows = Math.ceil(pngs.length / cols);
  const sheet = createCanvas(cols * cellW, rows * cellH + 40);
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#ccc';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  ctx.fillStyle = '#000';
  ctx.font = '24px sans-serif';
  ctx.fillText(`${stock.name} (${stock.title}) ${stock.widthDots}x${stock.lengthDots ?? 'continuous'} @ ${stock.dpi} dpi`, 10, 28);
  pngs.forEach(({ name, img, warnings }, i) => {
    const x = (i % cols) * cellW + 10;
    const y = Math.floor(i / cols) * cellH + 70;
    ctx.fillStyle = '#000';
    ctx.font = '16px sans-serif';
    ctx.fillText(`${name}${warnings.length ? ` [${warnings.join(', ')}]` : ''}`, x, y - 8);
    const [pw, ph] = [img.width + 2 * paper.across, img.height + 2 * paper.along];
    ctx.fillStyle = '#f00';
    ctx.fillRect(x - 2, y - 2, pw + 4, ph + 4);
    ctx.fillStyle = '#fff';
    ctx.fillRect(x, y, pw, ph);
    if (paper.across || paper.along) {
      // The printable area's edge, just outside it (on the paper), so no label dot is covered.
      ctx.strokeStyle = '#9cf';
      ctx.lineWidth = 1;
      ctx.strokeRect(x + paper.across - 1.5, y + paper.along - 1.5, img.width + 3, img.height + 3);
    }
    ctx.drawImage(img, x + paper.across, y + paper.along);
    n++;
  });
  writeFileSync(new URL(`${stock.name}.png`, dir), sheet.toBuffer('image/png'));
}
console.log(`wrote ${n} labels on ${STOCKS.length} contact sheets to ${dir.pathname}`);

// The integration pictures in docs/integrations.md (committed): Homebox's request text as the server turns it into a label.
const docs = new URL('../docs/integrations/', import.meta.url);
mkdirSync(docs, { recursive: true });
const base = 'https://homebox.example.com';
const pictures: [string, LabelRecord, ReturnType<typeof builtInTemplate>][] = [
  ['homebox-item.png', homeboxRecord({ TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: '/item/6f1c2a9e-4b3d-4c5e-8f7a-1b2c3d4e5f60' }, base), builtInTemplate('brother-ql-62x29')],
  ['homebox-asset.png', homeboxRecord({ TitleText: '000-001', DescriptionText: 'Cordless drill\nLocation: Garage', URL: '/a/000-001' }, base), builtInTemplate('brother-ql-62x29')],
  ['grocy-product.png', grocyRecord({ product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' }), grocyTemplate(builtInTemplate('brother-ql-62x29')!)],
  ['grocy-product-code128.png', grocyRecord({ product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' }), grocyTemplate(builtInTemplate('brother-ql-62x29')!, 'code128')],
];
for (const [name, record, template] of pictures) writeFileSync(new URL(name, docs), renderLabel(record, template!).png);
console.log(`wrote ${pictures.length} integration labels to ${docs.pathname}`);
