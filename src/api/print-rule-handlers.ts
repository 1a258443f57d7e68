/**
 * Print rules through the API (listPrintRules, createPrintRule, getPrintRule,
 * deletePrintRule). A rule is checked at save: its location, template and printer must
 * exist (422 invalid-print-rule). What a rule does is src/events/print-rules.ts.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { builtInTemplate } from '../labels/index.js';
import { isoTimestamp, type PrinterStore, type PrintRule, type PrintRuleStore, type RecordStore, type TemplateStore } from '../records/index.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';

type PrintRuleBody = components['schemas']['PrintRule'];

/** A deployment's rules at most (each event is matched against every rule). */
export const MAX_PRINT_RULES = 100;

export interface PrintRuleDeps {
  rules: PrintRuleStore;
  records: Pick<RecordStore, 'getLocation'>;
  templates: Pick<TemplateStore, 'get'>;
  printers: Pick<PrinterStore, 'get'>;
}

export function printRuleHandlers({ rules, records, templates, printers }: PrintRuleDeps): Pick<Handlers, 'listPrintRules' | 'createPrintRule' | 'getPrintRule' | 'deletePrintRule'> {
  const notFound = (id: string) => new HttpProblem('not-found', `No print rule has the id ${id}.`);
  const invalid = (detail: string) => new HttpProblem('invalid-print-rule', detail);
  return {
    async listPrintRules(_c, _req, res) {
      sendJson(res, 200, { rules: (await rules.list()).map(ruleBody) });
    },

    async createPrintRule(c, _req, res) {
      const input = c.request.requestBody;
      if (!(await records.getLocation(input.locationId))) throw invalid(`No location has the id ${input.locationId}.`);
      if (!builtInTemplate(input.template) && !(await templates.get(input.template))) {
        throw invalid(`No template is named ${input.template} (a stock name, a stock's alias, or a saved template: see listLabelTemplates).`);
      }
      const printer = input.printer ?? null;
      if (printer !== null && !(await printers.get(printer))) throw invalid(`No printer is named ${printer} (see listPrinters).`);
      if ((await rules.list()).length >= MAX_PRINT_RULES) throw invalid(`The deployment has ${MAX_PRINT_RULES} print rules already; delete one first.`);
      const rule: PrintRule = {
        id: randomUUID(),
        name: input.name,
        locationId: input.locationId,
        kinds: [...new Set(input.kinds)],
        triggers: [...new Set(input.triggers)],
        template: input.template,
        printer,
        tokenId: tokenOf(res).id,
        createdAt: isoTimestamp(new Date()),
      };
      await rules.create(rule);
      res.set('Location', `/v1/labelmaker/print-rules/${rule.id}`);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 201, ruleBody(rule));
    },

    async getPrintRule(c, _req, res) {
      const rule = await rules.get(c.request.params.ruleId);
      if (!rule) throw notFound(c.request.params.ruleId);
      sendJson(res, 200, ruleBody(rule));
    },

    async deletePrintRule(c, _req, res) {
      if (!(await rules.delete(c.request.params.ruleId))) throw notFound(c.request.params.ruleId);
      res.status(204).end();
    },
  };
}

/** A rule as the API shows it (its token id is not shown). */
function ruleBody(r: PrintRule): PrintRuleBody {
  return { id: r.id, name: r.name, locationId: r.locationId, kinds: r.kinds, triggers: r.triggers, template: r.template, printer: r.printer, createdAt: r.createdAt };
}
