/**
 * createPrintBatch and getPrintBatch: a selection printed as one batch of jobs.
 * The label service (label-service.ts, selection-labels.ts) resolves the selection
 * and template, draws every label on the render threads and stores all jobs in one
 * transaction with the batch, so a crash at any moment leaves either the whole
 * batch or nothing; this reads the request and writes the answer. A batch is heavy
 * work: a token has a bound on how many at once (heavy-work.ts).
 */
import type { components } from '../../generated/openapi.js';
import { shownPrinter, type PrintQueue } from '../printing/index.js';
import type { PrintBatch } from '../records/index.js';
import { jobRecord } from './handlers.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import { glyphNames, PRINT_JOBS_PATH } from './label-response.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';
import type { PrintedSelection } from './selection-labels.js';

type BatchBody = components['schemas']['PrintBatch'];
type LabelWarnings = components['schemas']['PrintBatchLabelWarnings'];

export const PRINT_BATCHES_PATH = `${PRINT_JOBS_PATH}/batches`;

export interface BatchDeps {
  /** Draws and prints the batch, as every label operation gets its labels. */
  labels: Pick<LabelService, 'printSelection' | 'requirePrinter'>;
  /** The stored batches (getPrintBatch); undefined without a printer. */
  queue: PrintQueue | undefined;
  heavy: HeavyWork;
}

export function printBatchHandlers({ labels, queue, heavy }: BatchDeps): Pick<Handlers, 'createPrintBatch' | 'getPrintBatch'> {
  return {
    async createPrintBatch(c, _req, res) {
      await labels.requirePrinter('nothing was printed. Make a sheet (createSheet) instead.');
      const body = c.request.requestBody;
      const tokenId = tokenOf(res).id;
      // Admitted until the batch is stored: its labels are held in memory until then.
      await heavy.run(tokenId, async () => {
        const printed = await labels.printSelection({ selection: body.selection, copies: body.copies, template: body.template, tokenId, idempotencyKey: c.request.headers['idempotency-key'], printer: body.printer });
        const { batch, created, copies } = printed;
        res.set({ Location: `${PRINT_BATCHES_PATH}/${batch.id}`, 'Cache-Control': 'no-store' });
        // Job i is copy (i mod copies) of label floor(i / copies); a replay whose selection now
        // resolves to other records has other labels than its jobs: their warnings are not the jobs'.
        const own = batch.jobIds.length === printed.labels.length * copies;
        // `more` answers a selection with `limit`: whether the same request again has more to print.
        const limited = 'limit' in body.selection && body.selection.limit !== undefined;
        sendJson(res, created ? 201 : 200, { ...batchBody(batch), ...(own ? { labelWarnings: labelWarnings(batch.jobIds, printed) } : {}), ...(limited ? { more: printed.more } : {}) });
      });
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

/** The batch's labels that carry warnings, by job, in print order (PrintBatch.labelWarnings). */
function labelWarnings(jobIds: readonly string[], { labels, copies }: PrintedSelection): LabelWarnings[] {
  return jobIds.flatMap((job, i) => {
    const { found, drawn } = labels[Math.floor(i / copies)]!;
    const { warnings, missingGlyphs } = drawn;
    const record = jobRecord(found.fields);
    if (!warnings.length || !record) return [];
    const glyphs = glyphNames(missingGlyphs);
    return [{ job, record, warnings: warnings as LabelWarnings['warnings'], ...(glyphs.length ? { missingGlyphs: glyphs } : {}) }];
  });
}

function batchBody(batch: PrintBatch): BatchBody {
  const { queued, printing, printed, failed, cancelled } = batch.counts;
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
    cancelled,
    createdAt: batch.createdAt,
    jobs: batch.jobIds,
  };
}
