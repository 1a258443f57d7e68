/**
 * Operation handlers, one per operationId in spec/openapi.yaml. Thin: parse the
 * id, find the record (label-records.ts), let src/labels draw it (label-response.ts).
 */
import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { components, operations } from '../../generated/openapi.js';
import { shownPrinter, type PrintQueue } from '../printing/index.js';
import type { PrintJob } from '../records/index.js';
import type { RecordKind } from '../labels/index.js';
import type { LabelFor } from './label-records.js';
import type { LabelResponder } from './label-response.js';
import { decodeCursor, encodeCursor, isJobSortKey } from './cursor.js';
import { HttpProblem, sendJson } from './problems.js';
import { DEFAULT_PAGE_SIZE } from './record-handlers.js';
import { tokenOf } from './router.js';

type OpContext<Op extends keyof operations> = Context<
  unknown,
  operations[Op]['parameters']['path'],
  NonNullable<operations[Op]['parameters']['query']>
>;
export type OpHandler<Op extends keyof operations> = (c: OpContext<Op>, req: Request, res: Response) => Promise<void>;

export interface HandlerDeps {
  labelFor: LabelFor;
  respond: LabelResponder;
}

/** The three label operations: one data path (labelFor), one response path (respond). */
export function labelHandlers({ labelFor, respond }: HandlerDeps): {
  getLocationLabel: OpHandler<'getLocationLabel'>;
  getItemLabel: OpHandler<'getItemLabel'>;
  getAssetLabel: OpHandler<'getAssetLabel'>;
} {
  // The three operations share their parameters (id, print, template).
  const handle = (kind: RecordKind) => async (c: OpContext<'getItemLabel'>, req: Request, res: Response) => {
    const label = await labelFor(kind, c.request.params.id);
    await respond(req, res, label, { print: c.request.query.print === true, template: c.request.query.template });
  };
  return { getLocationLabel: handle('location'), getItemLabel: handle('item'), getAssetLabel: handle('asset') };
}

/** Print jobs as the spec shows them (no token, key or document), to the token that created them only. */
export function printJobHandlers(queue: PrintQueue | undefined): {
  getPrintJob: OpHandler<'getPrintJob'>;
  listPrintJobs: OpHandler<'listPrintJobs'>;
  retryPrintJob: OpHandler<'retryPrintJob'>;
  cancelPrintJob: OpHandler<'cancelPrintJob'>;
} {
  return {
    async listPrintJobs(c, _req, res) {
      const q = c.request.query;
      const filters = { state: q.state, batchId: q.batch };
      const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, filters, isJobSortKey);
      // A server without a printer has no queue and so no jobs.
      const page = queue ? await queue.list({ ...filters, tokenId: tokenOf(res).id, limit: q.limit ?? DEFAULT_PAGE_SIZE, after }) : { jobs: [] };
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, {
        jobs: page.jobs.map(printJobBody),
        nextCursor: page.next ? encodeCursor(page.next, filters) : null,
      } satisfies components['schemas']['PrintJobPage']);
    },

    async retryPrintJob(c, _req, res) {
      const { jobId } = c.request.params;
      // A job that is not failed is a JobNotFailedError, a 409 (router.ts).
      const result = await queue?.retry(jobId, tokenOf(res).id);
      // As getPrintJob: another token's job does not exist for this one.
      if (!result) throw new HttpProblem('not-found', `No print job has the id ${jobId}.`);
      res.set('Cache-Control', 'no-store');
      sendJson(res, result.requeued ? 202 : 200, printJobBody(result.job));
    },

    async cancelPrintJob(c, _req, res) {
      const { jobId } = c.request.params;
      // A job no longer waiting is a JobNotCancellableError, a 409 (router.ts).
      const result = await queue?.cancel(jobId, tokenOf(res).id);
      // As getPrintJob: another token's job does not exist for this one.
      if (!result) throw new HttpProblem('not-found', `No print job has the id ${jobId}.`);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, printJobBody(result.job));
    },

    async getPrintJob(c, _req, res) {
      const { jobId } = c.request.params;
      const job = await queue?.get(jobId);
      // A job is visible to the token that created it only; to others it does not exist.
      if (!job || job.tokenId !== tokenOf(res).id) throw new HttpProblem('not-found', `No print job has the id ${jobId}.`);
      sendJson(res, 200, printJobBody(job));
    },
  };
}

/** A print job as the spec shows it (PrintJob): no token, key, fields or document; its record from the fields. */
export function printJobBody(job: PrintJob): PrintJobBody {
  return {
    id: job.id,
    state: job.state,
    printer: shownPrinter(job.printer),
    template: job.template,
    title: job.title,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    lastError: job.lastError,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    nextAttemptAt: job.nextAttemptAt,
    printedAt: job.printedAt,
    possibleDuplicate: job.possibleDuplicate,
    record: jobRecord(job.fields),
    batchId: job.batchId,
    cancelledAt: job.cancelledAt,
  };
}

type PrintJobBody = components['schemas']['PrintJob'];

const LABEL_KINDS: ReadonlySet<string> = new Set<RecordKind>(['location', 'item', 'asset']);

/**
 * The record a job prints, from the fields its label operation stored (labelOf:
 * kind, id, and assetId for an asset), as a label operation names it: an asset
 * by its asset id, the one on the label, not by its item's id. Null for fields of
 * other kinds (an image's or a Grocy label's), which are not our records.
 */
export function jobRecord(fields: Readonly<Record<string, string>>): PrintJobBody['record'] {
  const kind = fields.kind;
  if (kind === undefined || !LABEL_KINDS.has(kind)) return null;
  const id = kind === 'asset' ? fields.assetId : fields.id;
  return id ? { kind: kind as RecordKind, id } : null;
}
