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
import { LabelFitError, sameDesignForEveryKind, type LabelDesign, type LabelRecord, type Template } from '../labels/index.js';
import { formatAssetId, LABEL_KIND_FACTS, LABEL_KINDS, parseAssetId, type LabelKind } from '../records/index.js';
import { sendPrintJob } from './handlers.js';
import type { HeavyWork } from './heavy-work.js';
import type { DrawnLabel, LabelService } from './label-service.js';
import { sendPng } from './label-response.js';
import type { Handlers, OpContext, QueryOf } from './operations.js';
import { HttpProblem } from './problems.js';
import { tokenOf } from './router.js';

export interface IntegrationDeps {
  labels: LabelService;
  /** Makes Homebox's relative URLs absolute (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /** The per-token bound on heavy work (heavy-work.ts): an image decode is one. */
  heavy: HeavyWork;
}

/** What Homebox's query string says about the record (Homebox's label-maker URL template, `backend/internal/core/services/service_items.go`). */
export type HomeboxQuery = QueryOf<'getHomeboxLabel'>;

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
  // The kind whose front-end page the URL is (an asset's only with a valid asset id); an item's otherwise.
  const named = LABEL_KINDS.find((k) => LABEL_KIND_FACTS[k].frontEndSegment === kindWord);
  const assetId = named && LABEL_KIND_FACTS[named].byAssetId && idText ? parseAssetId(idText) : undefined;
  const kind: LabelKind = named && (!LABEL_KIND_FACTS[named].byAssetId || assetId !== undefined) ? named : 'item';
  let id = idText ?? '';
  const title = oneLine(q.TitleText ?? '');
  const lines = (q.DescriptionText ?? '').split(/\r?\n/).map(oneLine).filter((l) => l !== '' && l !== 'Homebox Location');
  const path = lines.filter((l) => /^Location:\s*/i.test(l)).map((l) => l.replace(/^Location:\s*/i, ''));
  const others = lines.filter((l) => !/^Location:\s*/i.test(l));
  if (LABEL_KIND_FACTS[kind].byAssetId) {
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
  return { name, stock: base.stock, designs: sameDesignForEveryKind(design) };
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

export function integrationHandlers({ labels, publicBaseUrl, heavy }: IntegrationDeps): Pick<Handlers, 'getHomeboxLabel' | 'printHomeboxLabel' | 'printGrocyLabel' | 'printImage'> {
  /** printImage and Homebox's print command: a PNG made elsewhere, fitted to the template's stock and printed. */
  const printPng =
    <Op extends 'printImage' | 'printHomeboxLabel'>(requestOf: (c: OpContext<Op>) => { name: string | undefined; parameter?: string; idempotencyKey: string | undefined; printer: string | undefined }) =>
    async (c: OpContext<Op>, _req: Request, res: Response): Promise<void> => {
      await labels.requirePrinter();
      const body = c.request.requestBody;
      if (!body?.length) throw new HttpProblem('invalid-request', 'Send the label as an image/png body.');
      const { name, parameter, idempotencyKey, printer } = requestOf(c);
      const template = await labels.template(name, parameter);
      const tokenId = tokenOf(res).id;
      // Decoding an image is heavy work: it counts toward the token's bound (heavy-work.ts).
      const fitted = await heavy.run(tokenId, () => labels.fitImage(body, template));
      const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
      const { job, created } = await labels.print({
        png: fitted.png,
        template,
        title: `image label (${fitted.sourceWidth} x ${fitted.sourceHeight} px)`,
        // The image's digest names the label: a replayed Idempotency-Key must bring the same image.
        fields: { kind: 'image', id: digest },
        tokenId,
        idempotencyKey,
        printer,
      });
      sendPrintJob(res, job, created);
    };

  return {
    async getHomeboxLabel(c, _req, res) {
      const extra = shortened(oneLine(c.request.query.AdditionalInformation ?? ''), FOOTER_MAX);
      const { record, png, warnings: drawn } = await labels.label({
        record: homeboxRecord(c.request.query, publicBaseUrl),
        template: c.request.params.template,
        templateParameter: IN_PATH,
        footer: extra.text || undefined,
      });
      const warnings = extra.cut ? [...drawn, 'footer-shortened'] : drawn;
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      // Missing glyphs are named on the ordinary label operations; here only what Homebox's user can act on.
      const shown = warnings.filter((w) => w !== 'missing-glyphs');
      if (shown.length) res.set('Label-Warnings', shown.join(', '));
      sendPng(res, png);
    },
    printHomeboxLabel: printPng((c) => ({ name: c.request.params.template, parameter: IN_PATH, idempotencyKey: c.request.headers['idempotency-key'], printer: c.request.query.printer })),
    printImage: printPng((c) => ({ name: c.request.query.template, idempotencyKey: c.request.headers['idempotency-key'], printer: c.request.query.printer })),
    async printGrocyLabel(c, _req, res) {
      await labels.requirePrinter();
      const code: GrocyCode = c.request.query.code ?? 'datamatrix';
      const template = grocyTemplate(await labels.template(c.request.params.template, IN_PATH), code);
      // Grocy's labels carry no footer.
      const draw = (short: boolean) => labels.label({ record: grocyRecord(c.request.requestBody, short), template, footer: null });
      let label: DrawnLabel;
      try {
        label = await draw(false);
        if (label.warnings.includes('due-date-cut')) {
          // The date alone may fit where the whole line does not.
          const short = await draw(true);
          if (!short.warnings.includes('due-date-cut')) label = short;
        }
      } catch (err) {
        // Never a label with its code cut off: the caller chose the stock and the symbology, and can change either.
        if (err instanceof LabelFitError) throw new HttpProblem('invalid-template', `${err.message} (code=${code}); choose ${code === 'code128' ? 'code=datamatrix (smaller) or ' : ''}a larger template.`);
        throw err;
      }
      const { record, png, warnings } = label;
      // Grocy shows nothing of the answer, but its log and a direct caller do.
      const shown = warnings.filter((w) => w !== 'missing-glyphs');
      if (shown.length) res.set('Label-Warnings', shown.join(', '));
      const { job, created } = await labels.print({
        png,
        template,
        title: `grocy label: ${record.name}`,
        fields: { kind: 'grocy', id: record.id, name: record.name, url: record.url },
        tokenId: tokenOf(res).id,
        printer: c.request.query.printer,
      });
      sendPrintJob(res, job, created);
    },
  };
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
