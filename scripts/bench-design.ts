/**
 * Element designs (issue 34): two figures, each against today's line design in the same run.
 * 1. Preview while typing: POST /v1/labelmaker/template-previews to a real server (SQLite,
 *    the demo records), the design's name text changing on every request as a user types;
 *    p50 and p95 ms for a 62x29 element design, and for a 6-line design the same way.
 * 2. Rendering: renderLabel's median ms for a 20-element design and for the 6-line design
 *    on 62x29, on this thread.
 * Run: npm run bench:design [-- previews renders]
 */
import { compileTemplate, engineTemplate, type TemplateInput } from '../src/api/template-design.js';
import { findStock, renderLabel, type LabelRecord } from '../src/labels/index.js';
import { startTestServer } from '../test/helpers/server.js';

const PREVIEWS = Number(process.argv[2] ?? 200);
const RENDERS = Number(process.argv[3] ?? 300);

const box = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
/** A 62x29 element design as a user would make one: name, rule, path, a note, a footer, a QR code. */
function elementDesign(typed: string): TemplateInput {
  return {
    stock: 'brother-ql-62x29',
    footer: '',
    elements: [
      { type: 'text', box: box(1, 1, 36, 8), text: `{name} ${typed}`, weight: 'bold', pt: { min: 8, max: 24 } },
      { type: 'line', box: box(1, 9.5, 36, 1) },
      { type: 'text', box: box(1, 11, 36, 5), text: 'Shelf: {path}', pt: { min: 6, max: 12 } },
      { type: 'text', box: box(1, 16, 36, 3.5), text: 'Note: check monthly', pt: { min: 6, max: 9 } },
      { type: 'text', box: box(1, 19.5, 36, 3.3), text: 'ACME · +1 555 0100', pt: { min: 6, max: 8 }, align: 'centre' },
      { type: 'code', box: box(38, 1, 20, 20), symbology: 'qr' },
    ],
  } as TemplateInput;
}
/** Today's design with six lines (the most it takes). */
function lineDesign(typed: string): TemplateInput {
  return {
    stock: 'brother-ql-62x29',
    footer: '',
    lines: [
      { field: 'custom', text: `{name} ${typed}` },
      { field: 'path' },
      { field: 'custom', text: 'Shelf: {path}' },
      { field: 'custom', text: 'Note: check monthly' },
      { field: 'custom', text: 'ACME · +1 555 0100' },
      { field: 'description' },
    ],
    codes: ['qr'],
  } as TemplateInput;
}
/** 20 elements: 12 texts, 4 rules, 2 frames, a QR code and a Code 128. */
function twentyElements(): TemplateInput {
  const texts = Array.from({ length: 12 }, (_, i) => ({ type: 'text', box: box(1 + (i % 2) * 18, 1 + Math.floor(i / 2) * 3.6, 17, 3.4), text: i === 0 ? '{name}' : `Line ${i} {kind}`, pt: { min: 6, max: 10 }, ...(i % 3 === 0 ? { weight: 'bold' } : {}) }));
  const rules = Array.from({ length: 4 }, (_, i) => ({ type: 'line', box: box(1, 4.6 + i * 3.6, 35, 0.4) }));
  return {
    stock: 'brother-ql-62x29',
    footer: '',
    elements: [...texts, ...rules, { type: 'frame', box: box(0, 0, 37, 22.8) }, { type: 'frame', box: box(37.2, 0, 21.6, 22.8) }, { type: 'code', box: box(38, 0.5, 20, 16) , symbology: 'qr' }, { type: 'code', box: box(38, 17, 20, 5.5), symbology: 'code128', data: '{assetDigits}' }],
  } as TemplateInput;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const f = (n: number) => n.toFixed(2);

const srv = await startTestServer();
async function previews(design: (typed: string) => TemplateInput): Promise<number[]> {
  const times: number[] = [];
  const word = 'Cordless drill with two batteries';
  for (let i = 0; i < 20 + PREVIEWS; i++) {
    const typed = word.slice(0, 1 + (i % word.length));
    const t0 = performance.now();
    const res = await fetch(`${srv.url}/v1/labelmaker/template-previews`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${srv.tokens.read}`, 'Content-Type': 'application/json', Accept: 'image/png, application/problem+json' },
      body: JSON.stringify({ design: design(typed), record: { kind: 'item', id: 'tape-measure' } }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`preview: ${res.status}`);
    if (i >= 20) times.push(performance.now() - t0);
  }
  return times;
}
const el = await previews(elementDesign);
const ln = await previews(lineDesign);
await srv.close();

const record: LabelRecord = { kind: 'item', id: 'tape-measure', name: 'Tape measure', path: ['Home', 'Garage', 'Shelf 3'], url: 'https://inventory.example.com/item/tape-measure', description: '5 m, magnetic hook' };
async function renders(input: TemplateInput): Promise<number[]> {
  const { design, logo } = await compileTemplate(input);
  const template = engineTemplate('bench', findStock(design.stock)!, design, logo, 'bench');
  const times: number[] = [];
  for (let i = 0; i < 50 + RENDERS; i++) {
    const t0 = performance.now();
    renderLabel({ ...record, name: `${record.name} ${i}` }, template);
    if (i >= 50) times.push(performance.now() - t0);
  }
  return times;
}
const r20 = await renders(twentyElements());
const r6 = await renders(lineDesign(''));

console.log(`preview while typing, 62x29, ${PREVIEWS} requests each (HTTP, real server)`);
console.log(`  element design (6 elements): p50 ${f(pct(el, 0.5))} ms  p95 ${f(pct(el, 0.95))} ms`);
console.log(`  6-line design (baseline):    p50 ${f(pct(ln, 0.5))} ms  p95 ${f(pct(ln, 0.95))} ms`);
console.log(`  ratio p95 element / lines: ${f(pct(el, 0.95) / pct(ln, 0.95))}`);
console.log(`render, 62x29, ${RENDERS} labels each (renderLabel)`);
console.log(`  20-element design: median ${f(pct(r20, 0.5))} ms  p95 ${f(pct(r20, 0.95))} ms`);
console.log(`  6-line design (baseline): median ${f(pct(r6, 0.5))} ms  p95 ${f(pct(r6, 0.95))} ms`);
console.log(`  ratio median 20 elements / 6 lines: ${f(pct(r20, 0.5) / pct(r6, 0.5))}`);
