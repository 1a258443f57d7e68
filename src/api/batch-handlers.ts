/**
 * createPrintBatch and getPrintBatch: a selection printed as one batch of jobs.
 * The selection and template are resolved by the label service (label-service.ts),
 * every label rendered on the render threads (render-pool.ts), and then all jobs are
 * stored through the service in one transaction with the batch (printing/queue.ts), so a crash at any moment leaves either the
 * whole batch or nothing. A batch is heavy work: a token has a bound on how many
 * at once (heavy-work.ts).
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { SheetTimeoutError, type RenderedLabel, type Renderer } from '../labels/index.js';
import { shownPrinter, type PrintQueue } from '../printing/index.js';
import type { PrintBatch } from '../records/index.js';
import { jobRecord } from './handlers.js';
import type { HeavyWork } from './heavy-work.js';
import type { LabelService } from './label-service.js';
import { glyphNames, PRINT_JOBS_PATH } from './label-response.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';

type BatchBody = components['schemas']['PrintBatch'];
type LabelWarnings = components['schemas']['PrintBatchLabelWarnings'];

export const PRINT_BATCHES_PATH = `${PRINT_JOBS_PATH}/batches`;
/**
 * Renders of one batch in flight at once, per render thread: enough to keep every
 * thread drawing (render-pool.ts queues a few per thread), few enough that a
 * single-label request arriving meanwhile waits behind a handful of this batch's
 * labels, not behind all 1000 of them.
 */
const IN_FLIGHT_PER_THREAD = 2;

export interface BatchDeps {
  /** Templates, selections and the batch's submission, as every label operation gets them. */
  labels: LabelService;
  /** Draws the batch's labels (not through the label cache). */
  renderer: Pick<Renderer, 'render' | 'threads'>;
  /** The stored batches (getPrintBatch); undefined without a printer. */
  queue: PrintQueue | undefined;
  heavy: HeavyWork;
  /** Rendering stops (503, nothing stored) after this long, inside the request time-out. */
  renderTimeoutMs: number;
}

export function printBatchHandlers({ labels, renderer, queue, heavy, renderTimeoutMs }: BatchDeps): Pick<Handlers, 'createPrintBatch' | 'getPrintBatch'> {
  return {
    async createPrintBatch(c, req, res) {
      labels.requirePrinter('nothing was printed. Make a sheet (createSheet) instead.');
      const body = c.request.requestBody;
      // Admitted until the batch is stored: its labels are held in memory until then.
      await heavy.run(tokenOf(res).id, async () => {
        const templateName = body.template ?? labels.defaultTemplateName;
        const template = await labels.template(templateName);
        const copies = body.copies ?? 1;
        const found = await labels.select(body.selection, copies);
        const deadline = Date.now() + renderTimeoutMs;
        const drawn = await inOrder(found, Math.max(1, renderer.threads) * IN_FLIGHT_PER_THREAD, async ({ record }, done) => {
          if (Date.now() > deadline) throw new SheetTimeoutError(`the batch took longer than its time limit after ${done} labels`);
          return renderer.render(record, template, { footer: labels.footer });
        });
        const { batch, created } = await labels.printBatch({
          labels: found.map((label, i) => ({ found: label, png: drawn[i]!.png })),
          copies,
          template,
          tokenId: tokenOf(res).id,
          idempotencyKey: req.get('Idempotency-Key'),
          // The request as the server reads it (defaults applied, members in a fixed order).
          requestHash: createHash('sha256').update(canonicalJson({ selection: body.selection, copies, template: templateName })).digest('base64url'),
        });
        res.set({ Location: `${PRINT_BATCHES_PATH}/${batch.id}`, 'Cache-Control': 'no-store' });
        // Job i is copy (i mod copies) of label floor(i / copies); a replay whose selection now
        // resolves to other records has other labels than its jobs: their warnings are not the jobs'.
        const own = batch.jobIds.length === found.length * copies;
        sendJson(res, created ? 201 : 200, { ...batchBody(batch), ...(own ? { labelWarnings: labelWarnings(batch.jobIds, found, drawn, copies) } : {}) });
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

/**
 * `work` over every item, at most `limit` at once, results in the items' order.
 * `done` counts the items finished before this one started. Each item starts on a
 * turn of the event loop of its own (setImmediate), so renders that finish at once
 * (the in-thread renderer) cannot chain into one long turn. The first failure
 * stops every lane: nothing more is started for a batch that fails anyway.
 */
async function inOrder<T, R>(items: readonly T[], limit: number, work: (item: T, done: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      await new Promise((resolve) => setImmediate(resolve));
      try {
        results[i] = await work(items[i]!, done);
      } catch (err) {
        failed = true;
        throw err;
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The batch's labels that carry warnings, by job, in print order (PrintBatch.labelWarnings). */
function labelWarnings(jobIds: readonly string[], found: readonly { fields: Record<string, string> }[], drawn: readonly Pick<RenderedLabel, 'warnings' | 'missingGlyphs'>[], copies: number): LabelWarnings[] {
  return jobIds.flatMap((job, i) => {
    const { warnings, missingGlyphs } = drawn[Math.floor(i / copies)]!;
    const record = jobRecord(found[Math.floor(i / copies)]!.fields);
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
