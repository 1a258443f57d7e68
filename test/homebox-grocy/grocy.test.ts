/**
 * Grocy's label-printer webhook, replayed as Grocy's server sends it (JSON, the
 * default since 4.5, and form fields), against the real server printing to a
 * real IPP Everywhere printer on loopback (ippeveprinter).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { readPngHeader } from '../helpers/png.js';
import { dots, inkBox } from '../labels/ink.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { grocyPost, phpBuildQuery } from './replay.js';

/** PNGs to look at (git-ignored); a fresh clone has no out/ yet. */
const OUT = join(process.cwd(), 'out');
mkdirSync(OUT, { recursive: true });

let printer: IppEvePrinter;
let srv: TestServer;
let key: string;

beforeAll(async () => {
  printer = await startIppEvePrinter();
  srv = await startTestServer({ PRINTER_URI: printer.uri, CORS_ALLOW_ORIGINS: 'https://grocy.example.com' });
  key = (await createToken(srv.store, 'grocy', ['integrations:print'])).token;
});
afterAll(async () => {
  await srv?.stop();
  await printer?.stop();
});

/** LABEL_PRINTER_WEBHOOK as docs/integrations/grocy-config.php (and the README) give it. */
const WEBHOOK = /Setting\('LABEL_PRINTER_WEBHOOK', '([^']+)'\)/.exec(readFileSync(join(process.cwd(), 'docs/integrations/grocy-config.php'), 'utf8'))![1]!;
const hook = (k = key, template = 'brother-ql-62x29') => new URL(WEBHOOK.replace('<KEY>', k).replace(/brother-ql-62x29$/, template)).pathname;

/** Waits until the printer has received the job's document (its name ends with the job id in brackets). */
async function printedDocument(jobId: string): Promise<Buffer[]> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const docs = (await printer.documents()).filter((d) => d.name.includes(jobId));
    if (docs.length) {
      await new Promise((r) => setTimeout(r, 300)); // a second copy would show by now
      return (await printer.documents()).filter((d) => d.name.includes(jobId)).map((d) => d.data);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}

/** Grocy's stock-entry payload (product label with a stock entry and a due date), plus LABEL_PRINTER_PARAMS. */
const STOCK_ENTRY = {
  product: 'Whole milk',
  grocycode: 'grcy:p:12:6489c6b1a3e2f',
  details: { id: 12, name: 'Whole milk', location_id: 2, qu_id_stock: 3, due_days: 7 },
  stock_entry: { id: 41, product_id: 12, amount: 1, best_before_date: '2026-06-09', stock_id: '6489c6b1a3e2f' },
  due_date: 'DD: 2026-06-09',
  font_family: 'Source Sans Pro',
};

describe('Grocy label-printer webhook', () => {
  it('JSON (Grocy 4.5+ default): 202 with the job within Grocy\'s 2 s, and the printer gets one label whose DataMatrix is the grocycode', async () => {
    const res = await grocyPost(srv.url, hook(), { json: STOCK_ENTRY });
    expect(res.status, res.body.toString()).toBe(202);
    expect(res.ms).toBeLessThan(2_000);
    console.log(`grocy webhook (JSON, first render): answered in ${res.ms} ms`);
    const job = JSON.parse(res.body.toString()) as { id: string; state: string; template: string };
    expect(res.headers['print-job']).toBe(`/v1/labelmaker/print-jobs/${job.id}`);
    // A Grocy label is none of our records, and no batch's (the key cannot read the job back: only this answer shows it).
    expect(job).toMatchObject({ record: null, batchId: null });
    const docs = await printedDocument(job.id);
    expect(docs).toHaveLength(1);
    const png = docs[0]!;
    const stock = getStock('brother-ql-62x29');
    const h = readPngHeader(png);
    expect([h.width, h.height]).toEqual([stock.widthDots, stock.lengthDots]);
    expect((await decodeBarcodes(png)).map((c) => `${c.format}:${c.text}`)).toEqual(['DataMatrix:grcy:p:12:6489c6b1a3e2f']);
    writeFileSync(join(OUT, 'grocy-stock-entry.png'), png);
  });

  it('form fields (LABEL_PRINTER_HOOK_JSON=false), nested details included: a chore label prints its grocycode', async () => {
    const form = phpBuildQuery({ chore: 'Descale the kettle', grocycode: 'grcy:c:3', details: { id: 3, name: 'Descale the kettle' } });
    const res = await grocyPost(srv.url, hook(key, 'dymo-30334'), { form });
    expect(res.status, res.body.toString()).toBe(202);
    const job = JSON.parse(res.body.toString()) as { id: string; template: string };
    expect(job.template).toBe('dymo-30334');
    const docs = await printedDocument(job.id);
    expect(docs).toHaveLength(1);
    expect((await decodeBarcodes(docs[0]!)).map((c) => c.text)).toEqual(['grcy:c:3']);
    writeFileSync(join(OUT, 'grocy-chore.png'), docs[0]!);
  });

  it('?code=code128 (Grocy\'s GROCYCODE_TYPE 1D): the same webhook prints a Code 128 that decodes to the exact grocycode, all ink inside the label', async () => {
    const res = await grocyPost(srv.url, `${hook()}?code=code128`, { json: STOCK_ENTRY });
    expect(res.status, res.body.toString()).toBe(202);
    expect(res.ms).toBeLessThan(2_000);
    const job = JSON.parse(res.body.toString()) as { id: string };
    const docs = await printedDocument(job.id);
    expect(docs).toHaveLength(1);
    const png = docs[0]!;
    const stock = getStock('brother-ql-62x29');
    const d = dots(png);
    expect([d.width, d.height]).toEqual([stock.widthDots, stock.lengthDots]);
    const box = inkBox(d)!;
    expect(box.x0).toBeGreaterThan(0);
    expect(box.y0).toBeGreaterThan(0);
    expect(box.x1).toBeLessThan(d.width);
    expect(box.y1).toBeLessThan(d.height);
    expect((await decodeBarcodes(png)).map((c) => `${c.format}:${c.text}`)).toEqual(['Code128:grcy:p:12:6489c6b1a3e2f']);
    writeFileSync(join(OUT, 'grocy-code128.png'), png);
    // code=datamatrix is the default spelled out: the same label as without it.
    const dm = await grocyPost(srv.url, `${hook()}?code=datamatrix`, { json: { product: 'Butter', grocycode: 'grcy:p:7' } });
    expect(dm.status).toBe(202);
    const dmDocs = await printedDocument((JSON.parse(dm.body.toString()) as { id: string }).id);
    expect((await decodeBarcodes(dmDocs[0]!)).map((c) => `${c.format}:${c.text}`)).toEqual(['DataMatrix:grcy:p:7']);
  });

  it('the due date of a stock entry is printed on 23 x 23 mm, 30332 and 62 x 29 mm: no warning, and another date prints another label', async () => {
    for (const template of ['brother-ql-23x23', 'dymo-30332', 'brother-ql-62x29']) {
      const printed = async (body: object) => {
        const res = await grocyPost(srv.url, hook(key, template), { json: body });
        expect(res.status, res.body.toString()).toBe(202);
        expect(res.headers['label-warnings'], template).toBeUndefined();
        const docs = await printedDocument((JSON.parse(res.body.toString()) as { id: string }).id);
        expect((await decodeBarcodes(docs[0]!)).map((c) => c.text), template).toEqual([STOCK_ENTRY.grocycode]);
        return docs[0]!;
      };
      const withDate = await printed(STOCK_ENTRY);
      writeFileSync(join(OUT, `grocy-due-date-${template}.png`), withDate);
      // Another day, another label: the date's digits are printed (a dropped date, or one cut to "DD:…", prints the same label for both).
      const nextDay = await printed({ ...STOCK_ENTRY, due_date: 'DD: 2026-06-10' });
      expect(withDate.equals(nextDay), template).toBe(false);
    }
  });

  it('?code=code128 on 62 mm continuous tape: a label as short as the 62 x 29 mm one, not 69-104 mm of mostly blank tape', async () => {
    for (const body of [STOCK_ENTRY, { product: 'Butter', grocycode: 'grcy:p:7' }]) {
      const res = await grocyPost(srv.url, `${hook(key, 'brother-ql-62')}?code=code128`, { json: body });
      expect(res.status, res.body.toString()).toBe(202);
      const docs = await printedDocument((JSON.parse(res.body.toString()) as { id: string }).id);
      const h = readPngHeader(docs[0]!);
      expect(h.width).toBe(696);
      expect(h.height).toBeLessThanOrEqual(getStock('brother-ql-62x29').lengthDots!);
      expect((await decodeBarcodes(docs[0]!)).map((c) => `${c.format}:${c.text}`)).toEqual([`Code128:${body.grocycode}`]);
      writeFileSync(join(OUT, `grocy-code128-62mm-${body.grocycode.length}.png`), docs[0]!);
    }
  });

  it('an unknown code is a 400 naming the parameter; a Code 128 too long for the stock is a 422 naming the code and the stock, and nothing prints', async () => {
    const bad = await grocyPost(srv.url, `${hook()}?code=qr`, { json: STOCK_ENTRY });
    expect(bad.status).toBe(400);
    expect((JSON.parse(bad.body.toString()) as { detail: string }).detail).toMatch(/\bcode\b/);
    const before = (await printer.documents()).length;
    const tooLong = await grocyPost(srv.url, `${hook(key, 'brother-ql-23x23')}?code=code128`, { json: STOCK_ENTRY });
    expect(tooLong.status, tooLong.body.toString()).toBe(422);
    expect(tooLong.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(tooLong.body.toString()) as { detail: string; type: string };
    expect(problem.detail).toContain('Code 128');
    expect(problem.detail).toContain('brother-ql-23x23');
    expect(problem.detail).toContain('code=datamatrix');
    expect(problem.detail).not.toContain(key);
    // The DataMatrix of the same grocycode fits that stock.
    const dm = await grocyPost(srv.url, hook(key, 'brother-ql-23x23'), { json: STOCK_ENTRY });
    expect(dm.status, dm.body.toString()).toBe(202);
    const dmDocs = await printedDocument((JSON.parse(dm.body.toString()) as { id: string }).id);
    expect(dmDocs).toHaveLength(1);
    expect((await printer.documents()).length).toBe(before + 1);
  });

  it('refuses a payload without a grocycode (400), another media type (415), an oversized body (413), a wrong key (401) and a render-only key (403)', async () => {
    expect((await grocyPost(srv.url, hook(), { json: { product: 'Milk' } })).status).toBe(400);
    const text = await fetch(srv.url + hook(), { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'grcy:p:1' });
    expect(text.status).toBe(415);
    const big = await grocyPost(srv.url, hook(), { json: { ...STOCK_ENTRY, padding: 'x'.repeat(4 * 1024 * 1024) } });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body.toString()).detail).toContain('4 MiB');
    expect((await grocyPost(srv.url, hook('lm_aaaaaaaa_' + 'b'.repeat(43)), { json: STOCK_ENTRY })).status).toBe(401);
    const viewer = (await createToken(srv.store, 'viewer', ['integrations:render'])).token;
    expect((await grocyPost(srv.url, hook(viewer), { json: STOCK_ENTRY })).status).toBe(403);
  });

  it("Grocy's real bodies: a product whose description has a pasted 60 KB picture (form, 69 KB) and a recipe with a long text (JSON, 66 KB) both print", async () => {
    // Grocy's editor stores a pasted picture inline as a data URI, and `details` carries the whole description.
    const picture = `<p>Our milk.</p><p><img src="data:image/png;base64,${randomBytes(48_000).toString('base64')}" style="width: 50%;"></p>`;
    const form = phpBuildQuery({ product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09', details: { id: 12, name: 'Whole milk', description: picture, location_id: 2 } });
    expect(form.length).toBeGreaterThan(64 * 1024); // over the old 64 KiB cap, as Grocy's 69,269 B body was
    const product = await grocyPost(srv.url, hook(), { form });
    expect(product.status, product.body.toString()).toBe(202);
    const job = JSON.parse(product.body.toString()) as { id: string; title: string };
    expect(job.title).toBe('grocy label: Whole milk');
    const docs = await printedDocument(job.id);
    expect((await decodeBarcodes(docs[0]!)).map((c) => c.text)).toEqual(['grcy:p:12:6489c6b1a3e2f']);
    const steps = Array.from({ length: 700 }, (_, i) => `<li>Step ${i + 1}: stir the sauce, let it simmer for a while, and taste it again before the next layer.</li>`).join('');
    const recipe = { recipe: 'Lasagne', grocycode: 'grcy:r:5', details: { recipe: { id: 5, name: 'Lasagne', description: `<ol>${steps}</ol>` } } };
    expect(JSON.stringify(recipe).length).toBeGreaterThan(64 * 1024);
    const res = await grocyPost(srv.url, hook(), { json: recipe });
    expect(res.status, res.body.toString()).toBe(202);
    expect((JSON.parse(res.body.toString()) as { title: string }).title).toBe('grocy label: Lasagne');
  });

  it('reads the fields as the body arrives, in pieces of any size (chunked); malformed or non-object JSON is a 400', async () => {
    const send = async (type: string, text: string, piece: number) => {
      const bytes = Buffer.from(text, 'utf8');
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let at = 0; at < bytes.length; at += piece) c.enqueue(new Uint8Array(bytes.subarray(at, at + piece)));
          c.close();
        },
      });
      return fetch(srv.url + hook(), { method: 'POST', headers: { 'Content-Type': type }, body, duplex: 'half' } as RequestInit);
    };
    const form = phpBuildQuery({ details: { name: 'Not this', description: 'x&y=z'.repeat(50) }, product: 'Crème fraîche & herbs', grocycode: 'grcy:p:9', due_date: 'DD: 2026-07-01', extra: 'product=Wrong' });
    for (const piece of [1, 3, 7, 1000]) {
      const res = await send('application/x-www-form-urlencoded', `${form}&product=Second`, piece);
      expect(res.status, await res.clone().text()).toBe(202);
      expect(((await res.json()) as { title: string }).title).toBe('grocy label: Crème fraîche & herbs');
      const json = await send('application/json', JSON.stringify({ details: { product: 'Not this', grocycode: 'grcy:p:1' }, product: 'Crème fraîche', grocycode: 'grcy:p:9' }), piece);
      expect(json.status).toBe(202);
      expect(((await json.json()) as { title: string }).title).toBe('grocy label: Crème fraîche');
    }
    for (const bad of ['{"grocycode": "grcy:p:9"', '["grcy:p:9"]', '{"grocycode": "grcy:p:9"} {}', '']) {
      const res = await send('application/json', bad || ' ', 5);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('takes the hook from Grocy\'s page (LABEL_PRINTER_RUN_SERVER=false) when CORS_ALLOW_ORIGINS allows Grocy\'s origin', async () => {
    const origin = 'https://grocy.example.com';
    const pre = await fetch(srv.url + hook(), { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    const res = await fetch(srv.url + hook(), { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: JSON.stringify({ product: 'Butter', grocycode: 'grcy:p:7' }) });
    expect(res.status).toBe(202);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const job = (await res.json()) as { id: string };
    expect(await printedDocument(job.id)).toHaveLength(1);
  });
});

describe('printImage (ordinary API twin of the Homebox print command)', () => {
  it('fits a colour 526 x 200 picture to the stock as 1-bit and prints it once; the same Idempotency-Key does not print again', async () => {
    // Homebox's own renderer's picture size, as an 8-bit RGBA PNG with a QR code: drawn with canvas.
    const { createCanvas } = await import('canvas');
    const QRCode = (await import('../../src/labels/symbols.js')).encodeQr('https://homebox.example.com/item/1', 'M');
    const canvas = createCanvas(526, 200);
    const g = canvas.getContext('2d');
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, 526, 200);
    g.fillStyle = '#202020';
    const mod = Math.floor(180 / (QRCode.cols + 8));
    for (let y = 0; y < QRCode.rows; y++) for (let x = 0; x < QRCode.cols; x++) if (QRCode.dark[y * QRCode.cols + x]) g.fillRect(10 + (x + 4) * mod, 10 + (y + 4) * mod, mod, mod);
    g.font = 'bold 40px sans-serif';
    g.fillText('Drill', 220, 110);
    const png = canvas.toBuffer('image/png');
    const headers = { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'image/png', 'Idempotency-Key': 'hb-print-1' };
    const res = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images?template=brother-ql-62x29`, { method: 'POST', headers, body: new Uint8Array(png) });
    expect(res.status, await res.clone().text()).toBe(202);
    const job = (await res.json()) as { id: string };
    const again = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images?template=brother-ql-62x29`, { method: 'POST', headers, body: new Uint8Array(png) });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(job.id);
    g.fillText('Saw', 220, 170); // another picture under the same key
    const other = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images?template=brother-ql-62x29`, { method: 'POST', headers, body: new Uint8Array(canvas.toBuffer('image/png')) });
    expect(other.status).toBe(422);
    const docs = await printedDocument(job.id);
    expect(docs).toHaveLength(1);
    const h = readPngHeader(docs[0]!);
    expect([h.width, h.height, h.bitDepth]).toEqual([696, 271, 1]);
    expect((await decodeBarcodes(docs[0]!, { formats: ['QRCode'] })).map((c) => c.text)).toEqual(['https://homebox.example.com/item/1']);
    writeFileSync(join(OUT, 'print-image.png'), docs[0]!);
    const status = await fetch(`${srv.url}/v1/labelmaker/print-jobs/${job.id}`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
    expect(await status.json()).toMatchObject({ state: 'printed', record: null, batchId: null });
  });

  it('refuses a body that is not a PNG (400) and a token without labels:print (403)', async () => {
    const bad = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images`, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'image/png' }, body: 'GIF89a....' });
    expect(bad.status).toBe(400);
    const reader = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images`, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.read}`, 'Content-Type': 'image/png' }, body: 'x' });
    expect(reader.status).toBe(403);
  });
});

describe('a server without a printer', () => {
  it('draws Homebox labels but answers the print operations 501, creating no job', async () => {
    const bare = await startTestServer();
    try {
      const k = (await createToken(bare.store, 'both', ['integrations:render', 'integrations:print'])).token;
      const label = await fetch(`${bare.url}/v1/integrations/homebox/${k}/labels/brother-ql-62x29?TitleText=Drill&URL=%2Fitem%2F1`);
      expect(label.status).toBe(200);
      const png = new Uint8Array(await label.arrayBuffer());
      const grocy = await grocyPost(bare.url, `/v1/integrations/grocy/${k}/brother-ql-62x29`, { json: STOCK_ENTRY });
      expect(grocy.status).toBe(501);
      const homebox = await fetch(`${bare.url}/v1/integrations/homebox/${k}/print-jobs/brother-ql-62x29`, { method: 'POST', headers: { 'Content-Type': 'image/png' }, body: png });
      expect(homebox.status).toBe(501);
      const image = await fetch(`${bare.url}/v1/labelmaker/print-jobs/images`, { method: 'POST', headers: { Authorization: `Bearer ${bare.tokens.print}`, 'Content-Type': 'image/png' }, body: png });
      expect(image.status).toBe(501);
      expect((await bare.store.printJobs.pendingCounts()).queued).toBe(0);
    } finally {
      await bare.stop();
    }
  });
});

