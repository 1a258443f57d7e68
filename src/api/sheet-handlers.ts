/**
 * createSheet: a selection's labels laid out on a sheet product, as a PDF, or the
 * product's calibration page. The label service (label-service.ts, selection-labels.ts)
 * resolves the template, the selection and the offset and draws the PDF on a render
 * thread; this reads the request and writes the answer. A sheet is heavy work: a
 * token has a bound on how many at once (heavy-work.ts).
 */
import { findSheetProduct } from '../labels/index.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import { warningsHeader } from './label-response.js';
import type { Handlers } from './operations.js';
import { HttpProblem } from './problems.js';
import { tokenOf } from './router.js';
import type { SheetOffset } from './selection-labels.js';

export interface SheetDeps {
  /** Draws sheets and calibration pages, as every label operation gets its labels. */
  labels: Pick<LabelService, 'sheet' | 'calibrationPage'>;
  heavy: HeavyWork;
}

export function sheetHandlers({ labels, heavy }: SheetDeps): Pick<Handlers, 'createSheet'> {
  return {
    async createSheet(c, _req, res) {
      const body = c.request.requestBody;
      const product = findSheetProduct(body.sheet)!; // the spec's enum has checked the name
      if (body.calibration && body.selection) throw new HttpProblem('invalid-request', 'request body selection: a calibration page draws no labels; leave selection out.');
      // The request's own offset, else the product's saved one (the spec bounds both to MAX_OFFSET_MM either way).
      const page = { product, template: body.template, offsetXMm: body.offsetXMm, offsetYMm: body.offsetYMm };
      if (body.calibration) {
        const drawn = await heavy.run(tokenOf(res).id, () => labels.calibrationPage(page));
        res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="labels-${product.name}-calibration.pdf"`, 'Sheet-Offset': offsetHeader(drawn.offset) });
        res.status(200).type('application/pdf').send(drawn.pdf);
        return;
      }
      const selection = body.selection;
      if (!selection) throw new HttpProblem('invalid-request', 'request body selection: required (except with calibration).');
      const perSheet = product.columns * product.rows;
      const startAt = body.startAt ?? 1;
      if (startAt > perSheet) {
        throw new HttpProblem('invalid-request', `startAt ${startAt} is past the last position of ${product.name} (${perSheet} label${perSheet === 1 ? '' : 's'} per sheet).`);
      }
      const sheet = await heavy.run(tokenOf(res).id, () => labels.sheet({ ...page, selection, copies: body.copies, startAt, guides: body.guides }));
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="labels-${product.name}.pdf"`, 'Sheet-Offset': offsetHeader(sheet.offset) });
      const warning = warningsHeader(sheet.warnings, sheet.missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      const which = labelWarningsHeader(sheet.labelWarnings);
      if (which) res.set('Sheet-Label-Warnings', which);
      res.status(200).type('application/pdf').send(sheet.pdf);
    },
  };
}

/** `Sheet-Offset`: "saved x=-0.5 y=1" (millimetres to the hundredth). */
export function offsetHeader(offset: SheetOffset): string {
  const mm = (v: number) => String(Math.round(v * 100) / 100 || 0);
  return `${offset.source} x=${mm(offset.x)} y=${mm(offset.y)}`;
}

/** Labels listed in Sheet-Label-Warnings at most; the rest are counted ("(+N more)"), keeping the header small. */
const LISTED_MAX = 50;

/** `Sheet-Label-Warnings`: which labels carry which warnings, as "page.position warning ...", `; `-separated (see the spec). */
export function labelWarningsHeader(labels: readonly { page: number; position: number; warnings: string[] }[]): string | undefined {
  if (!labels.length) return undefined;
  const listed = labels.slice(0, LISTED_MAX).map((l) => `${l.page}.${l.position} ${l.warnings.join(' ')}`);
  return listed.join('; ') + (labels.length > LISTED_MAX ? ` (+${labels.length - LISTED_MAX} more)` : '');
}
