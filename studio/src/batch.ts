/**
 * "Print all on the label printer": the selection printed as one batch (asked first above
 * a few labels, naming the count and the template), watched until every job is done, with
 * the labels that carry warnings said in words.
 */
import { failureText, unreachable, type PrintBatch, type PrintJob } from './api.js';
import { $, busy, el, isBusy } from './dom.js';
import type { JobsPanel } from './jobs.js';
import { batchOptions, batchTotal, CONFIRM_ABOVE, selection } from './selection.js';
import { staleSince, whenBack } from './service-gone.js';
import { signedIn } from './session.js';
import { warningInWords } from './warnings.js';

/** How long a batch is watched after it was sent. */
const WATCH_MS = 300_000;
/** Labels with warnings listed by name; the rest are counted. */
const WARNINGS_LISTED = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let batchTimer: number | undefined;
let running = false;

/** Whether a batch is being watched (its status then stays while the selection changes). */
export const batchRunning = (): boolean => running;

/** Signed out: nothing is watched. */
export function stopWatchingBatch(): void {
  window.clearTimeout(batchTimer);
}

/** `notDone` is all that is said when the service could not be reached (the page's message says why). */
export function batchError(err: unknown, notDone: string): void {
  const box = $('batch-error');
  box.textContent = failureText(err, notDone);
  box.hidden = false;
}

export function initBatch(jobs: JobsPanel): void {
  $('print-batch').addEventListener('click', async () => {
    const api = signedIn.api;
    const chosen = selection();
    const button = $<HTMLButtonElement>('print-batch');
    if (!api || !chosen || isBusy(button)) return;
    const { template, copies } = batchOptions();
    const { total, text } = batchTotal();
    // Many labels (or a count not known yet) are confirmed first, naming the count and the template.
    if ((total === null || total > CONFIRM_ABOVE) && !window.confirm(`Print ${text}?`)) return;
    busy(button, true);
    $('batch-error').hidden = true;
    $('batch-warnings').hidden = true;
    window.clearTimeout(batchTimer);
    try {
      const batch = await api.printBatch({ selection: chosen, template, copies });
      void jobs.refresh();
      void showBatchWarnings(batch);
      await watchBatch(batch);
    } catch (err) {
      batchError(err, 'Nothing was printed.');
    } finally {
      busy(button, false);
    }
  });
}

async function watchBatch(batch: PrintBatch, started = Date.now()): Promise<void> {
  showBatchStatus(batch);
  running = batch.state === 'pending' && Date.now() - started <= WATCH_MS && signedIn.api !== null;
  if (!running) return;
  batchTimer = window.setTimeout(async () => {
    try {
      await watchBatch(await signedIn.api!.batch(batch.id), started);
    } catch (err) {
      if (!unreachable(err)) return batchError(err, '');
      // Its jobs are queued and print anyway: the last counts stay, marked as such, until the service is back.
      $('batch-status').append(staleSince());
      whenBack(() => void watchBatch(batch, started));
    }
  }, 1000);
}

function showBatchStatus(batch: PrintBatch): void {
  const box = $('batch-status');
  box.hidden = false;
  box.className = `job ${batch.state}`;
  const state = el('strong', { className: 'state' }, batch.state);
  state.dataset.state = batch.state;
  // The service counts cancelled jobs among the failed ones; a person reads them apart.
  const cancelled = batch.cancelled > 0 ? `, ${batch.cancelled} cancelled` : '';
  box.replaceChildren('Batch ', state, ` · ${batch.printed} of ${batch.total} printed, ${batch.pending} waiting, ${batch.failed - batch.cancelled} failed${cancelled}`);
}

/**
 * The labels of the batch that are not quite as asked (the answer's labelWarnings), each
 * record once (copies carry the same warnings) by its job's title, with the warnings in words.
 */
async function showBatchWarnings(batch: PrintBatch): Promise<void> {
  const warned = batch.labelWarnings ?? [];
  const box = $('batch-warnings');
  if (warned.length === 0) return;
  const byRecord = new Map<string, { job: string; record: string; copies: number; words: string[] }>();
  for (const w of warned) {
    const key = `${w.record.kind}:${w.record.id}`;
    const seen = byRecord.get(key);
    if (seen) seen.copies++;
    else byRecord.set(key, { job: w.job, record: UUID.test(w.record.id) ? `${w.record.kind === 'location' ? 'a' : 'an'} ${w.record.kind} label` : `${w.record.kind} ${w.record.id}`, copies: 1, words: w.warnings.map((k) => warningInWords(k, w.missingGlyphs)) });
  }
  // The jobs' titles name the records as people know them (a UUID names nothing).
  const titles = new Map<string, string>();
  await signedIn.api
    ?.printJobs({ batch: batch.id, limit: 200 })
    .then((page) => page.jobs.forEach((j: PrintJob) => titles.set(j.id, j.title)))
    .catch(() => {});
  const records = [...byRecord.values()];
  const items = records.slice(0, WARNINGS_LISTED).map((r) => {
    const name = titles.get(r.job) ?? r.record;
    return el('li', {}, el('span', { className: 'title', dir: 'auto' }, name), `${r.copies > 1 ? ` (${r.copies} copies)` : ''}: ${r.words.join(' ')}`);
  });
  const more = records.length > WARNINGS_LISTED ? [el('p', {}, `And ${records.length - WARNINGS_LISTED} more.`)] : [];
  box.replaceChildren(el('strong', {}, `${warned.length} label${warned.length === 1 ? ' is' : 's are'} not quite as asked:`), el('ul', {}, ...items), ...more);
  box.hidden = false;
}
