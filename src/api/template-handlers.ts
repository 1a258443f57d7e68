/**
 * The saved-template operations (listLabelTemplates, getLabelTemplate,
 * putLabelTemplate, deleteLabelTemplate). Thin: request rules (templates.ts),
 * checking the design (template-design.ts), conditional writes (the store).
 */
import { isoTimestamp, type FieldDefinition, type TemplateStore } from '../records/index.js';
import type { Handlers } from './operations.js';
import { etagMatches } from './label-response.js';
import { HttpProblem, sendJson } from './problems.js';
import { compileTemplate, MAX_TEMPLATES, templateFile, templateResource, toSaved, withScanCheck } from './template-design.js';
import { assertNameFree, ifMatchHolds, preconditionOf } from './templates.js';

export const TEMPLATES_PATH = '/v1/labelmaker/templates';

export function templateHandlers(store: TemplateStore, fields: readonly FieldDefinition[] = []): Pick<
  Handlers,
  'listLabelTemplates' | 'getLabelTemplate' | 'exportLabelTemplate' | 'putLabelTemplate' | 'deleteLabelTemplate'
> {
  const notFound = (name: string) => new HttpProblem('not-found', `No saved template is named ${name}.`);
  const changed = (name: string, etag: string) =>
    new HttpProblem('precondition-failed', `The template ${name} changed since your If-Match (its ETag is now ${etag}); read it again and reapply your change.`);

  return {
    async listLabelTemplates(_c, _req, res) {
      const templates = await store.list();
      sendJson(res, 200, { templates: templates.map(templateResource) });
    },

    async getLabelTemplate(c, _req, res) {
      const saved = await store.get(c.request.params.name);
      if (!saved) throw notFound(c.request.params.name);
      res.set({ ETag: saved.etag, 'Cache-Control': 'private, no-cache' });
      // If-None-Match on a read: weak comparison (RFC 9110 13.1.2), as on the labels.
      if (etagMatches(c.request.headers['if-none-match'], saved.etag)) {
        res.status(304).end();
        return;
      }
      sendJson(res, 200, templateResource(saved));
    },

    async exportLabelTemplate(c, _req, res) {
      const saved = await store.get(c.request.params.name);
      if (!saved) throw notFound(c.request.params.name);
      // The name is a TemplateName (^[a-z0-9][a-z0-9._-]*$): nothing to quote in the file name.
      res.set({ ETag: saved.etag, 'Cache-Control': 'private, no-cache', 'Content-Disposition': `attachment; filename="${saved.name}.labelmaker.json"` });
      sendJson(res, 200, templateFile(saved));
    },

    async putLabelTemplate(c, _req, res) {
      const { name } = c.request.params;
      const precondition = preconditionOf(c.request.headers, 'put');
      assertNameFree(name);
      const compiled = await compileTemplate(c.request.requestBody, '', fields);
      const when = new Date();
      const logo = compiled.logo;
      const design = await withScanCheck(compiled.design, logo, fields, when);
      const now = isoTimestamp(when);
      if ('create' in precondition) {
        if ((await store.count()) >= MAX_TEMPLATES) throw new HttpProblem('invalid-template', `/: at most ${MAX_TEMPLATES} templates can be saved; delete one first.`);
        const saved = toSaved(name, design, logo, now, now);
        if (!(await store.put(saved, null))) throw new HttpProblem('precondition-failed', `A template named ${name} already exists; read it and replace it with If-Match.`);
        res.set({ ETag: saved.etag, Location: `${TEMPLATES_PATH}/${name}` });
        sendJson(res, 201, templateResource(saved));
        return;
      }
      const current = await store.get(name);
      if (!current) throw new HttpProblem('precondition-failed', `No template named ${name} exists (it may have been deleted); create it with If-None-Match: *.`);
      if (!ifMatchHolds(precondition.ifMatch, current.etag)) throw changed(name, current.etag);
      const saved = toSaved(name, design, logo, current.createdAt, now);
      // The store checks the ETag again in the write itself: a change between the read and here loses.
      if (!(await store.put(saved, current.etag))) throw new HttpProblem('precondition-failed', `The template ${name} changed while yours was saved; read it again.`);
      res.set({ ETag: saved.etag });
      sendJson(res, 200, templateResource(saved));
    },

    async deleteLabelTemplate(c, _req, res) {
      const { name } = c.request.params;
      const precondition = preconditionOf(c.request.headers, 'delete');
      const current = await store.get(name);
      if (!current) throw notFound(name);
      if (!ifMatchHolds(precondition.ifMatch, current.etag)) throw changed(name, current.etag);
      if (!(await store.delete(name, current.etag))) throw new HttpProblem('precondition-failed', `The template ${name} changed while it was being deleted; read it again.`);
      res.status(204).end();
    },
  };
}
