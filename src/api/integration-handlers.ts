/**
 * The integration operations: Homebox's external label service and print command,
 * Grocy's label-printer webhook, and printImage (a PNG the caller brings). The
 * credential (an integration key in the path, or a bearer token for printImage)
 * was checked by the router; these only turn each system's request into our
 * labels and print jobs.
 */
import type { components } from '../../generated/openapi.js';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ImageError, LabelFitError, type FittedImage, type LabelDesign, type LabelRecord, type RecordKind, type Stock, type Template } from '../labels/index.js';
import { IdempotencyMismatchError, type PrintQueue, type PrintRequest } from '../printing/index.js';
import { formatAssetId, parseAssetId } from '../records/index.js';
import type { OpHandler } from './handlers.js';
import type { HeavyWork } from './heavy-work.js';
import { printJobBody } from './handlers.js';
import type { LabelCache } from './label-cache.js';
import { jobTitle, PRINT_JOBS_PATH } from './label-response.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';
import type { TemplateResolver } from './templates.js';

export interface IntegrationDeps {
  labels: LabelCache;
  resolveTemplate: TemplateResolver;
  defaultTemplate: string;
  footer: string | undefined;
  /** Makes Homebox's relative URLs absolute (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  queue: PrintQueue | undefined;
  /** Checks, decodes and fits an uploaded PNG off the event loop (Renderer.fitImage in render-pool.ts). */
  fitImage: (png: Buffer, stock: Stock) => Promise<FittedImage>;
  /** The per-token bound on heavy work (heavy-work.ts): an image decode is one. */
  heavy: HeavyWork;
}

/** What Homebox's query string says about the record (Homebox's label-maker URL template, `backend/internal/core/services/service_items.go`). */
export interface HomeboxQuery {
  TitleText?: string;
  DescriptionText?: string;
  URL?: string;
  AdditionalInformation?: string;
}

/**
 * Homebox's request → the record our engine draws. Kind and id from URL's path;
 * TitleText the title (an asset's id, whose item name is then DescriptionText's
 * first line); `Location: X` lines become the location path; the constant
 * `Homebox Location` is dropped.
 */
export function homeboxRecord(q: HomeboxQuery, publicBaseUrl: string): LabelRecord {
  const raw = (q.URL ?? '').trim();
  const url = /^https?:\/\//i.test(raw) ? raw : raw.startsWith('/') ? `${publicBaseUrl}${raw}` : raw ? `${publicBaseUrl}/${raw}` : publicBaseUrl;
  let pathname = '';
  try {
    pathname = new URL(url).pathname;
  } catch {
    /* not a URL: no kind or id from it */
  }
  const segments = pathname.split('/').filter(Boolean).map(safeDecode);
  const [kindWord, idText] = segments.slice(-2);
  let kind: RecordKind = 'item';
  let id = idText ?? '';
  let assetId: number | undefined;
  if (kindWord === 'location') kind = 'location';
  else if (kindWord === 'a' && idText) {
    assetId = parseAssetId(idText);
    if (assetId !== undefined) kind = 'asset';
  }
  const title = oneLine(q.TitleText ?? '');
  const lines = (q.DescriptionText ?? '').split(/\r?\n/).map(oneLine).filter((l) => l !== '' && l !== 'Homebox Location');
  const path = lines.filter((l) => /^Location:\s*/i.test(l)).map((l) => l.replace(/^Location:\s*/i, ''));
  const others = lines.filter((l) => !/^Location:\s*/i.test(l));
  if (kind === 'asset') {
    // TitleText is the asset id; the item's name is the first other line.
    const name = others.shift() ?? title;
    id = formatAssetId(assetId!);
    return { kind, id, name, path, assetId, url, description: others.join(' ') };
  }
  return { kind, id: id || title, name: title, path, url, description: others.join(' ') };
}

/** How the grocycode is printed: Grocy's GROCYCODE_TYPE 2D (DataMatrix) or 1D (Code 128); Grocy does not send it. */
export type GrocyCode = 'datamatrix' | 'code128';

const GROCY_TEXT: LabelDesign['text'] = [
  { role: 'title', source: { field: 'name' } },
  // The due date is why a food label exists: printed whole, or the answer says `due-date-cut`.
  { role: 'line', source: { field: 'description' }, keep: 'due-date-cut' },
];

/** Grocy's label designs: the name, the due date, and the grocycode as a DataMatrix or a Code 128 (with the grocycode under its bars). */
const GROCY_DESIGNS: Readonly<Record<GrocyCode, LabelDesign>> = {
  datamatrix: { text: GROCY_TEXT, codes: [{ symbology: 'datamatrix', data: '{url}' }], textPt: { min: 7, max: 36 } },
  // On continuous tape as short as the die-cut 62 x 29 mm label, not 69-104 mm for 4-dot bars across the head.
  code128: { text: GROCY_TEXT, codes: [{ symbology: 'code128', data: '{url}', caption: '{url}', text: true }], textPt: { min: 7, max: 36 }, shortest: true },
};

/** Grocy's design on a template's stock (the template's own designs are for inventory records). */
export function grocyTemplate(base: Template, code: GrocyCode = 'datamatrix'): Template {
  const design = GROCY_DESIGNS[code];
  const name = code === 'datamatrix' ? `grocy:${base.name}` : `grocy-${code}:${base.name}`;
  return { name, stock: base.stock, designs: { location: design, item: design, asset: design } };
}

/** Grocy's webhook body, as the spec's GrocyLabel schema declares it. */
export type GrocyPayload = components['schemas']['GrocyLabel'];

/**
 * `short`: the due date without Grocy's localized prefix (`DD: 2026-06-09` → `2026-06-09`),
 * for stock too small for the whole line at the smallest text (23 mm square).
 */
export function grocyRecord(p: GrocyPayload, short = false): LabelRecord {
  const name = oneLine(p.product ?? p.battery ?? p.chore ?? p.recipe ?? '') || p.grocycode;
  const due = oneLine(p.due_date ?? '');
  // The grocycode travels in `url`, the field a design's code data names.
  return { kind: 'item', id: p.grocycode, name, path: [], url: p.grocycode, description: short ? due.replace(/^[^:]{1,20}:\s*(?=\S)/u, '') : due };
}

export function integrationHandlers(deps: IntegrationDeps): {
  getHomeboxLabel: OpHandler<'getHomeboxLabel'>;
  printHomeboxLabel: OpHandler<'printHomeboxLabel'>;
  printGrocyLabel: OpHandler<'printGrocyLabel'>;
  printImage: OpHandler<'printImage'>;
} {
  const { labels, resolveTemplate, defaultTemplate, footer, publicBaseUrl, queue, fitImage, heavy } = deps;

  const printPng = async (req: Request, res: Response, templateName: string, parameter?: string) => {
    if (!queue) throw new HttpProblem('printing-not-configured', 'This server has no printer configured.');
    const body = res.locals.rawBody;
    if (!body?.length) throw new HttpProblem('invalid-request', 'Send the label as an image/png body.');
    const template = await resolveTemplate(templateName, parameter);
    const tokenId = tokenOf(res).id;
    // Decoding an image is heavy work: it counts toward the token's bound (heavy-work.ts).
    const fitted = await heavy.run(tokenId, () => fitImage(body, template.stock)).catch((err: unknown) => {
      throw err instanceof ImageError ? imageProblem(err) : err;
    });
    const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    await submit(req, res, {
      png: fitted.png,
      template: template.stock.name,
      title: jobTitle(`image label (${fitted.sourceWidth} x ${fitted.sourceHeight} px)`),
      // The image's digest names the label: a replayed Idempotency-Key must bring the same image.
      fields: { kind: 'image', id: digest },
      tokenId,
      idempotencyKey: req.get('Idempotency-Key'),
    });
  };

  const submit = async (_req: Request, res: Response, request: PrintRequest) => {
    try {
      const { job, created } = await queue!.submit(request);
      res.set({ 'Print-Job': `${PRINT_JOBS_PATH}/${job.id}`, 'Cache-Control': 'no-store' });
      sendJson(res, created ? 202 : 200, printJobBody(job));
    } catch (err) {
      if (err instanceof IdempotencyMismatchError) throw new HttpProblem('idempotency-key-reused', err.message);
      throw err;
    }
  };

  return {
    async getHomeboxLabel(c, _req, res) {
      const template = await resolveTemplate(c.request.params.template, IN_PATH);
      const record = homeboxRecord(c.request.query as HomeboxQuery, publicBaseUrl);
      const extra = shortened(oneLine((c.request.query as HomeboxQuery).AdditionalInformation ?? ''), FOOTER_MAX);
      const labelFooter = extra.text || footer;
      const { png, warnings: drawn } = await labels.get(labels.keyOf(record, template, labelFooter), record, template, labelFooter);
      const warnings = extra.cut ? [...drawn, 'footer-shortened'] : drawn;
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      // Missing glyphs are named on the ordinary label operations; here only what Homebox's user can act on.
      const shown = warnings.filter((w) => w !== 'missing-glyphs');
      if (shown.length) res.set('Label-Warnings', shown.join(', '));
      res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
    },
    printHomeboxLabel: (c, req, res) => printPng(req, res, c.request.params.template, IN_PATH),
    printImage: (c, req, res) => printPng(req, res, c.request.query.template ?? defaultTemplate),
    async printGrocyLabel(c, req, res) {
      if (!queue) throw new HttpProblem('printing-not-configured', 'This server has no printer configured.');
      const base = await resolveTemplate(c.request.params.template, IN_PATH);
      const code: GrocyCode = c.request.query.code ?? 'datamatrix';
      const template = grocyTemplate(base, code);
      let record = grocyRecord(c.request.requestBody as GrocyPayload);
      let png: Buffer;
      let warnings: string[];
      try {
        ({ png, warnings } = await labels.get(labels.keyOf(record, template, undefined), record, template, undefined));
        if (warnings.includes('due-date-cut')) {
          // The date alone may fit where the whole line does not.
          const short = grocyRecord(c.request.requestBody as GrocyPayload, true);
          const again = await labels.get(labels.keyOf(short, template, undefined), short, template, undefined);
          if (!again.warnings.includes('due-date-cut')) {
            ({ png, warnings } = again);
            record = short;
          }
        }
      } catch (err) {
        // Never a label with its code cut off: the caller chose the stock and the symbology, and can change either.
        if (err instanceof LabelFitError) throw new HttpProblem('invalid-template', `${err.message} (code=${code}); choose ${code === 'code128' ? 'code=datamatrix (smaller) or ' : ''}a larger template.`);
        throw err;
      }
      // Grocy shows nothing of the answer, but its log and a direct caller do.
      const shown = warnings.filter((w) => w !== 'missing-glyphs');
      if (shown.length) res.set('Label-Warnings', shown.join(', '));
      await submit(req, res, {
        png,
        template: base.stock.name,
        title: jobTitle(`grocy label: ${record.name}`),
        fields: { kind: 'grocy', id: record.id, name: record.name, url: record.url },
        tokenId: tokenOf(res).id,
      });
    },
  };
}

/** An upload that cannot be printed: 400 when it is no PNG at all, 413 when it is too large, else 422 saying what is wrong. */
function imageProblem(err: ImageError): HttpProblem {
  if (err.fault === 'not-png') return new HttpProblem('invalid-request', `The body is not a PNG image: ${err.message}.`);
  if (err.fault === 'too-large') return new HttpProblem('payload-too-large', `The image is too large to print: ${err.message}.`);
  return new HttpProblem('invalid-image', `The PNG cannot be printed: ${err.message}.`);
}

/** The integrations name their template in the path. */
const IN_PATH = 'path parameter template';

/** Longest footer taken from Homebox's AdditionalInformation (Homebox has no limit; a label has room for far less). */
const FOOTER_MAX = 500;

/** `text` cut to at most `max` characters at a space where there is one, with `…`. */
function shortened(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const head = [...text].slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  return { text: `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`, cut: true };
}

/** One line: control characters and line breaks become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
