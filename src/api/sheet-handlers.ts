/**
 * createSheet: a selection's labels laid out on a sheet product, as a PDF. The
 * selection is resolved whole first and the template as for the label operations
 * (both by the label service, label-service.ts), then a render thread draws the sheet
 * (render-pool.ts): a 1000-label sheet is seconds of drawing, never on the event
 * loop. A sheet is heavy work: a token has a bound on how many at once (heavy-work.ts).
 */
import { findSheetProduct, type Renderer } from '../labels/index.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import type { Handlers } from './operations.js';
import { HttpProblem } from './problems.js';
import { tokenOf } from './router.js';
import { warningsHeader } from './label-response.js';
import { offsetHeader, sheetOffset } from './calibration-handlers.js';
import type { SheetCalibrationStore } from '../records/index.js';

export interface SheetDeps {
  /** Templates and selections, as every label operation gets them. */
  labels: LabelService;
  renderer: Pick<Renderer, 'sheet' | 'calibration'>;
  /** Saved calibrations: a sheet that gives no offset takes its product's. */
  calibrations: Pick<SheetCalibrationStore, 'get'>;
  heavy: HeavyWork;
  /** Drawing stops (503) after this long, inside the request time-out. */
  renderTimeoutMs: number;
}

export function sheetHandlers({ labels, renderer, calibrations, heavy, renderTimeoutMs }: SheetDeps): Pick<Handlers, 'createSheet'> {
  return {
    async createSheet(c, _req, res) {
      const body = c.request.requestBody;
      const product = findSheetProduct(body.sheet)!; // the spec's enum has checked the name
      if (body.calibration && body.selection) throw new HttpProblem('invalid-request', 'request body selection: a calibration page draws no labels; leave selection out.');
      // The request's own offset, else the product's saved one (the spec bounds both to MAX_OFFSET_MM either way).
      const offset = await sheetOffset(body, calibrations);
      const offsetMm = { x: offset.x, y: offset.y };
      if (body.calibration) {
        const template = await labels.template(body.template);
        const page = await heavy.run(tokenOf(res).id, () => renderer.calibration({ product, template, offsetMm, offsetFrom: offset.source }));
        res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="labels-${product.name}-calibration.pdf"`, 'Sheet-Offset': offsetHeader(offset) });
        res.status(200).type('application/pdf').send(page.pdf);
        return;
      }
      const selection = body.selection;
      if (!selection) throw new HttpProblem('invalid-request', 'request body selection: required (except with calibration).');
      const perSheet = product.columns * product.rows;
      const startAt = body.startAt ?? 1;
      if (startAt > perSheet) {
        throw new HttpProblem('invalid-request', `startAt ${startAt} is past the last position of ${product.name} (${perSheet} label${perSheet === 1 ? '' : 's'} per sheet).`);
      }
      const sheet = await heavy.run(tokenOf(res).id, async () => {
        const template = await labels.template(body.template);
        const copies = body.copies ?? 1;
        const found = await labels.select(selection, copies);
        return renderer.sheet(
          found.map(({ record }) => ({ record, copies })),
          { product, template, startAt, guides: body.guides ?? false, footer: labels.footer, offsetMm, deadline: Date.now() + renderTimeoutMs },
        );
      });
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="labels-${product.name}.pdf"`, 'Sheet-Offset': offsetHeader(offset) });
      const warning = warningsHeader(sheet.warnings, sheet.missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      const which = labelWarningsHeader(sheet.labelWarnings);
      if (which) res.set('Sheet-Label-Warnings', which);
      res.status(200).type('application/pdf').send(sheet.pdf);
    },
  };
}

/** Labels listed in Sheet-Label-Warnings at most; the rest are counted ("(+N more)"), keeping the header small. */
const LISTED_MAX = 50;

/** `Sheet-Label-Warnings`: which labels carry which warnings, as "page.position warning ...", `; `-separated (see the spec). */
export function labelWarningsHeader(labels: readonly { page: number; position: number; warnings: string[] }[]): string | undefined {
  if (!labels.length) return undefined;
  const listed = labels.slice(0, LISTED_MAX).map((l) => `${l.page}.${l.position} ${l.warnings.join(' ')}`);
  return listed.join('; ') + (labels.length > LISTED_MAX ? ` (+${labels.length - LISTED_MAX} more)` : '');
}
