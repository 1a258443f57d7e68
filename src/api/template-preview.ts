/**
 * previewLabelTemplate: a record's label drawn with a design that is not saved,
 * so an editor can show the design while it changes. The design is checked as a
 * save checks it (compileTemplate, pointers under `/design`), the record found as
 * the label operations find it, or a sample record (not stored: the longest name, an RTL
 * one) checked as putRecord checks one; nothing is stored, and the answer is not cacheable.
 * The label is drawn on a render thread (the label cache's renderer); a preview is
 * heavy work (a logo to compile, a label to draw): a token has a bound on how many
 * at once (heavy-work.ts).
 */
import { findStock } from '../labels/index.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import { sendPng, warningsHeader } from './label-response.js';
import type { Handlers } from './operations.js';
import { checkSampleRecord, LABEL_KIND_FACTS, type FieldDefinition } from '../records/index.js';
import type { components } from '../../generated/openapi.js';
import { labelOf } from './label-records.js';
import { HttpProblem } from './problems.js';
import { tokenOf } from './router.js';
import { compileTemplate, engineTemplate } from './template-design.js';

export interface PreviewDeps {
  /** Its label cache: an unchanged design asked again (an editor toggling back) is not drawn twice. */
  labels: LabelService;
  heavy: HeavyWork;
  /** The field catalogue the design's placeholders may name. */
  fields?: readonly FieldDefinition[];
  /** Base of the URL a sample's code carries, as a stored record's (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
}

type Sample = components['schemas']['SampleRecord'];

/** A sample's label record: checked by the records' rules (a 422 at /sample naming what is wrong), never stored. */
function sampleLabel(sample: Sample, fields: readonly FieldDefinition[], publicBaseUrl: string) {
  const facts = LABEL_KIND_FACTS[sample.kind];
  if (facts.byAssetId && !sample.assetId) throw new HttpProblem('invalid-template', '/sample/assetId: an asset label needs an asset id.');
  if (facts.recordKind === 'location' && sample.assetId) throw new HttpProblem('invalid-template', '/sample/assetId: a location has no asset id.');
  const { name, description, assetId } = sample;
  const checked = checkSampleRecord(facts.recordKind, { name, description, asset_id: assetId }, sample.fields === undefined ? undefined : { values: sample.fields, catalogue: fields });
  if (!checked.record) throw new HttpProblem('invalid-template', `/sample: ${checked.problems.join('; ')}.`);
  return labelOf(sample.kind, checked.record, sample.path ?? [], publicBaseUrl, checked.record.assetId ?? undefined).record;
}

export function templatePreviewHandler({ labels, heavy, fields = [], publicBaseUrl }: PreviewDeps): Pick<Handlers, 'previewLabelTemplate'> {
  return {
    async previewLabelTemplate(c, _req, res) {
      const body = c.request.requestBody;
      // The request schema holds exactly one of the two.
      const sample = body.sample ? sampleLabel(body.sample, fields, publicBaseUrl) : undefined;
      const { record, png, warnings, missingGlyphs } = await heavy.run(tokenOf(res).id, async () => {
        const { design, logo } = await compileTemplate(body.design, '/design', fields);
        // compileTemplate has checked the stock by name.
        const template = engineTemplate('preview', findStock(design.stock)!, design, logo, 'preview');
        // The footer, for a design that leaves it to the server: LABEL_FOOTER.
        return labels.label(sample ? { record: sample, template } : { find: body.record!, template });
      });
      const warning = warningsHeader(warnings, missingGlyphs);
      if (warning) res.set('Label-Warnings', warning);
      res.set({ 'Cache-Control': 'no-store', 'Content-Disposition': `inline; filename="${record.kind}-label.png"` });
      sendPng(res, png);
    },
  };
}
