/**
 * The label operations (getLocationLabel, getItemLabel, getAssetLabel) and the print
 * job operations. Thin: the label service (label-service.ts) finds, draws and prints;
 * these read the request and write the answer.
 */
import type { Request, Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { PRINTER_NAME, PrintingNotConfiguredError, shownPrinter, type PrintQueue } from '../printing/index.js';
import { isLabelKind, LABEL_KIND_FACTS, LABEL_KINDS, type LabelKind, type LabelKindFacts, type PrintJob } from '../records/index.js';
import { decodeCursor, encodeCursor, isJobSortKey } from './cursor.js';
import { addHeader } from './headers.js';
import type { LabelService } from './label-service.js';
import { etagMatches, PRINT_JOBS_PATH, sendPng, setLabelValidators, warningsHeader } from './label-response.js';
import type { Handlers, OpContext } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { DEFAULT_PAGE_SIZE } from './record-handlers.js';
import { tokenOf } from './router.js';

/** The label operations, one per label kind (src/records/kinds.ts names each). */
type LabelOperation = LabelKindFacts['operationId'];

/** The label operations: the record by kind and id, drawn (and printed) by the service. */
export function labelHandlers(labels: LabelService): Pick<Handlers, LabelOperation> {
  // The label operations share their parameters (id, print, template).
  const handle =
    (kind: LabelKind) =>
    async (c: OpContext<LabelOperation>, _req: Request, res: Response): Promise<void> => {
      const print = c.request.query.print === true;
      const headers = c.request.headers;
      const label = await labels.resolve({
        find: { kind, id: c.request.params.id },
        template: c.request.query.template,
        print: print ? { tokenId: tokenOf(res).id, idempotencyKey: headers['idempotency-key'], printer: c.request.query.printer } : undefined,
      });
      setLabelValidators(res, label.record, label.key);
      // A print request ignores If-None-Match: it prints, and the client needs Print-Job.
      if (!print && etagMatches(headers['if-none-match'], `"${label.key}"`)) {
        // Answered without drawing (a 304 carries validators, not Label-Warnings: see the spec).
        res.status(304).end();
        return;
      }
      const { png, warnings, missingGlyphs, job } = await labels.draw(label);
      const warning = warningsHeader(warnings, missingGlyphs);
      if (warning) addHeader(res, 'Label-Warnings', warning);
      if (job) addHeader(res, 'Print-Job', `${PRINT_JOBS_PATH}/${job.id}`);
      // A replayed job stored before printers had names carries no printer name: no header then.
      if (job && PRINTER_NAME.test(job.printer)) addHeader(res, 'Print-Printer', job.printer);
      sendPng(res, png);
    };
  return Object.fromEntries(LABEL_KINDS.map((kind) => [LABEL_KIND_FACTS[kind].operationId, handle(kind)])) as Pick<Handlers, LabelOperation>;
}

/** A stored print job as the answer of the operation that printed it (202 when new, 200 for an idempotent replay). */
export function sendPrintJob(res: Response, job: PrintJob, created: boolean): void {
  res.set({ 'Print-Job': `${PRINT_JOBS_PATH}/${job.id}`, 'Cache-Control': 'no-store' });
  sendJson(res, created ? 202 : 200, printJobBody(job));
}

/** Print jobs as the spec shows them (no token, key or document), to the token that created them only. */
export function printJobHandlers(queue: PrintQueue | undefined): Pick<Handlers, 'getPrintJob' | 'listPrintJobs' | 'retryPrintJob' | 'cancelPrintJob' | 'movePrintJob'> {
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

    async movePrintJob(c, _req, res) {
      const { jobId } = c.request.params;
      if (!queue) throw new PrintingNotConfiguredError();
      // A job no longer waiting is a JobNotMovableError (409); an unknown printer an UnknownPrinterError (422).
      const job = await queue.move(jobId, tokenOf(res).id, c.request.requestBody.printer);
      // As getPrintJob: another token's job does not exist for this one.
      if (!job) throw new HttpProblem('not-found', `No print job has the id ${jobId}.`);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, printJobBody(job));
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
    heldReason: job.heldReason,
  };
}

type PrintJobBody = components['schemas']['PrintJob'];

/**
 * The record a job prints, from the fields its label operation stored (labelOf:
 * kind, id, and assetId for an asset), as a label operation names it: an asset
 * by its asset id, the one on the label, not by its item's id. Null for fields of
 * other kinds (an image's or a Grocy label's), which are not our records.
 */
export function jobRecord(fields: Readonly<Record<string, string>>): PrintJobBody['record'] {
  const kind = fields.kind;
  if (!isLabelKind(kind)) return null;
  const id = LABEL_KIND_FACTS[kind].byAssetId ? fields.assetId : fields.id;
  return id ? { kind, id } : null;
}
