/**
 * previewLabelTemplate: a record's label drawn with a design that is not saved,
 * so an editor can show the design while it changes. The design is checked as a
 * save checks it (compileTemplate, pointers under `/design`), the record found as
 * the label operations find it; nothing is stored, and the answer is not cacheable.
 */
import { findStock } from '../labels/index.js';
import type { components } from '../../generated/openapi.js';
import type { OpHandler } from './handlers.js';
import type { LabelCache } from './label-cache.js';
import type { LabelFor } from './label-records.js';
import { warningsHeader } from './label-response.js';
import { compileTemplate, engineTemplate } from './template-design.js';

type PreviewRequest = components['schemas']['TemplatePreviewRequest'];

export interface PreviewDeps {
  labelFor: LabelFor;
  /** The label cache: an unchanged design asked again (an editor toggling back) is not drawn twice. */
  labels: LabelCache;
  /** LABEL_FOOTER, for a design that leaves its footer to the server. */
  footer: string | undefined;
}

export function templatePreviewHandler({ labelFor, labels, footer }: PreviewDeps): { previewLabelTemplate: OpHandler<'previewLabelTemplate'> } {
  return {
    async previewLabelTemplate(c, _req, res) {
      const body = c.request.requestBody as PreviewRequest;
      const { design, logo } = await compileTemplate(body.design, '/design');
      // compileTemplate has checked the stock by name.
      const template = engineTemplate('preview', findStock(design.stock)!, design, logo, 'preview');
      const { record } = await labelFor(body.record.kind, body.record.id);
      const { png, warnings, missingGlyphs } = await labels.get(labels.keyOf(record, template, footer), record, template, footer);
      const warning = warningsHeader(warnings, missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
    },
  };
}
