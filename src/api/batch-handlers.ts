/**
 * createPrintBatch and getPrintBatch: a selection printed as one batch of jobs.
 * The selection is resolved whole (selection.ts), every label rendered, and then
 * all jobs are stored in one transaction with the batch (printing/queue.ts), so a
 * crash at any moment leaves either the whole batch or nothing.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { renderLabel, SheetTimeoutError, type Template } from '../labels/index.js';
import { IdempotencyMismatchError } from '../printing/queue.js';
import type { PrintBatchRequest, PrintQueue } from '../printing/types.js';
import type { PrintBatch } from '../records/types.js';
import type { OpHandler } from './handlers.js';
import { jobTitle, PRINT_JOBS_PATH } from './label-response.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';
import type { SelectLabels } from './selection.js';
import type { TemplateResolver } from './templates.js';
import { shownPrinter } from '../printing/printer-name.js';

type BatchRequestBody = components['schemas']['PrintBatchRequest'];
type BatchBody = components['schemas']['PrintBatch'];

export const PRINT_BATCHES_PATH = `${PRINT_JOBS_PATH}/batches`;
/** Labels rendered between two turns of the event loop. */
const RENDER_SLICE = 20;

export interface BatchDeps {
  queue: PrintQueue | undefined;
  select: SelectLabels;
  resolveTemplate: TemplateResolver;
  defaultTemplate: string;
  footer: string | undefined;
  /** Rendering stops (503, nothing stored) after this long, inside the request time-out. */
  renderTimeoutMs: number;
}

export function printBatchHandlers({ queue, select, resolveTemplate, defaultTemplate, footer, renderTimeoutMs }: BatchDeps): {
  createPrintBatch: OpHandler<'createPrintBatch'>;
  getPrintBatch: OpHandler<'getPrintBatch'>;
} {
  return {
    async createPrintBatch(c, req, res) {
      if (!queue) throw new HttpProblem('printing-not-configured', 'This server has no printer configured; nothing was printed. Make a sheet (createSheet) instead.');
      const body = c.request.requestBody as BatchRequestBody;
      const templateName = body.template ?? defaultTemplate;
      const template = await resolveTemplate(templateName);
      const copies = body.copies ?? 1;
      const found = await select(body.selection, copies);
      const deadline = Date.now() + renderTimeoutMs;
      const labels: PrintBatchRequest['labels'] = [];
      for (const [i, { record, fields }] of found.entries()) {
        const { png } = renderLabel(record, template, { footer });
        const title = jobTitle(`${record.kind} label: ${record.kind === 'asset' ? fields.assetId : record.name}`);
        for (let n = 0; n < copies; n++) labels.push({ png, template: template.stock.name, title, fields });
        if ((i + 1) % RENDER_SLICE === 0) {
          if (Date.now() > deadline) throw new SheetTimeoutError(`the batch took longer than its time limit after ${i + 1} labels`);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      try {
        const { batch, created } = await queue.submitBatch({
          labels,
          template: template.stock.name,
          tokenId: tokenOf(res).id,
          idempotencyKey: req.get('Idempotency-Key'),
          // The request as the server reads it (defaults applied, members in a fixed order).
          requestHash: createHash('sha256').update(canonicalJson({ selection: body.selection, copies, template: templateName })).digest('base64url'),
        });
        res.set({ Location: `${PRINT_BATCHES_PATH}/${batch.id}`, 'Cache-Control': 'no-store' });
        sendJson(res, created ? 201 : 200, batchBody(batch));
      } catch (err) {
        if (err instanceof IdempotencyMismatchError) throw new HttpProblem('idempotency-key-reused', err.message);
        throw err;
      }
    },

    async getPrintBatch(c, _req, res) {
      const { batchId } = c.request.params;
      const batch = await queue?.getBatch(batchId);
      // Visible to the token that created it only; to others it does not exist.
      if (!batch || batch.tokenId !== tokenOf(res).id) throw new HttpProblem('not-found', `No print batch has the id ${batchId}.`);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, batchBody(batch));
    },
  };
}

function batchBody(batch: PrintBatch): BatchBody {
  const { queued, printing, printed, failed } = batch.counts;
  const pending = queued + printing;
  return {
    id: batch.id,
    state: pending > 0 ? 'pending' : failed > 0 ? 'failed' : 'printed',
    printer: shownPrinter(batch.printer),
    template: batch.template,
    total: batch.jobIds.length,
    printed,
    pending,
    failed,
    createdAt: batch.createdAt,
    jobs: batch.jobIds,
  };
}

/** JSON with object members sorted: the same request gives the same text whatever its members' order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
