/**
 * previewLabelTemplate: a record's label drawn with a design that is not saved,
 * so an editor can show the design while it changes. The design is checked as a
 * save checks it (compileTemplate, pointers under `/design`), the record found as
 * the label operations find it; nothing is stored, and the answer is not cacheable.
 * The label is drawn on a render thread (the label cache's renderer); a preview is
 * heavy work (a logo to compile, a label to draw): a token has a bound on how many
 * at once (heavy-work.ts).
 */
import { findStock } from '../labels/index.js';
import type { components } from '../../generated/openapi.js';
import type { OpHandler } from './handlers.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelCache } from './label-cache.js';
import type { LabelFor } from './label-records.js';
import { warningsHeader } from './label-response.js';
import { tokenOf } from './router.js';
import { compileTemplate, engineTemplate } from './template-design.js';

type PreviewRequest = components['schemas']['TemplatePreviewRequest'];

export interface PreviewDeps {
  labelFor: LabelFor;
  /** The label cache: an unchanged design asked again (an editor toggling back) is not drawn twice. */
  labels: LabelCache;
  heavy: HeavyWork;
  /** LABEL_FOOTER, for a design that leaves its footer to the server. */
  footer: string | undefined;
}

export function templatePreviewHandler({ labelFor, labels, heavy, footer }: PreviewDeps): { previewLabelTemplate: OpHandler<'previewLabelTemplate'> } {
  return {
    async previewLabelTemplate(c, _req, res) {
      const body = c.request.requestBody as PreviewRequest;
      const { record, png, warnings, missingGlyphs } = await heavy.run(tokenOf(res).id, async () => {
        const { design, logo } = await compileTemplate(body.design, '/design');
        // compileTemplate has checked the stock by name.
        const template = engineTemplate('preview', findStock(design.stock)!, design, logo, 'preview');
        const { record } = await labelFor(body.record.kind, body.record.id);
        return { record, ...(await labels.get(labels.keyOf(record, template, footer), record, template, footer)) };
      });
      const warning = warningsHeader(warnings, missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
    },
  };
}
