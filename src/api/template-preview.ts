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
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import { sendPng, warningsHeader } from './label-response.js';
import type { Handlers } from './operations.js';
import type { FieldDefinition } from '../records/index.js';
import { tokenOf } from './router.js';
import { compileTemplate, engineTemplate } from './template-design.js';

export interface PreviewDeps {
  /** Its label cache: an unchanged design asked again (an editor toggling back) is not drawn twice. */
  labels: LabelService;
  heavy: HeavyWork;
  /** The field catalogue the design's placeholders may name. */
  fields?: readonly FieldDefinition[];
}

export function templatePreviewHandler({ labels, heavy, fields = [] }: PreviewDeps): Pick<Handlers, 'previewLabelTemplate'> {
  return {
    async previewLabelTemplate(c, _req, res) {
      const body = c.request.requestBody;
      const { record, png, warnings, missingGlyphs } = await heavy.run(tokenOf(res).id, async () => {
        const { design, logo } = await compileTemplate(body.design, '/design', fields);
        // compileTemplate has checked the stock by name.
        const template = engineTemplate('preview', findStock(design.stock)!, design, logo, 'preview');
        // The footer, for a design that leaves it to the server: LABEL_FOOTER.
        return labels.label({ find: body.record, template });
      });
      const warning = warningsHeader(warnings, missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      sendPng(res, png);
    },
  };
}
