/**
 * "Labels to reprint" (issue 32): the records whose printed label is out of date (or, switched,
 * that never had one), listed from listRecords?labels=..., with one click to reprint them all,
 * however many: batch after batch of the first BATCH (selection {labels, limit}), each watched
 * until every job is done before the next is sent (the printed ones have left the list), while
 * the answer says there are `more`. The service reprints a stale label with its last template,
 * to the printer its rules choose. A batch is never larger than the token's print quota
 * (session.printQuotaPerMinute); when the quota is used up (429), the run waits Retry-After
 * and sends the same batch again. A batch with a failed job, or still printing after WATCH_MS,
 * stops the run with a message. The list reloads at the end.
 */
import { failureText, retryAfterOf, statusOf, type PrintBatch, type PrintBatchRequest, type Studio } from './api.js';
import { $, busy, el, isBusy } from './dom.js';
import { signedIn } from './session.js';

type LabelState = 'stale' | 'neverPrinted';
const SHOWN = 50;
/** Labels per batch: the most a batch takes (and at most the print quota). */
const BATCH = 1000;
const WATCH_MS = 300_000;
/** The longest Retry-After the run waits out (the quota's window is a minute). */
const MAX_QUOTA_WAIT_S = 120;
let timer: number | undefined;

const stateOf = (): LabelState => ($<HTMLSelectElement>('reprint-state').value === 'neverPrinted' ? 'neverPrinted' : 'stale');

/** Signed in with labels:print: the panel is shown and filled. */
export function showReprint(): void {
  $('reprint').hidden = false;
  void loadReprint();
}

export function hideReprint(): void {
  window.clearTimeout(timer);
  $('reprint').hidden = true;
}

export function initReprint(): void {
  $('reprint-state').addEventListener('change', () => {
    // The last batch's progress belongs to the other list.
    $('reprint-progress').hidden = true;
    $('reprint-progress-text').textContent = '';
    void loadReprint();
  });
  $('reprint-refresh').addEventListener('click', () => void loadReprint());
  $('reprint-all').addEventListener('click', () => void reprintAll());
}

async function loadReprint(): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const state = stateOf();
  const status = $('reprint-status');
  const list = $('reprint-list');
  $('reprint-error').hidden = true;
  status.textContent = 'Loading…';
  try {
    const page = await api.records({ labels: state, limit: SHOWN });
    list.replaceChildren(
      ...page.records.map((r) => el('li', { className: 'record' }, el('span', { className: 'kind' }, r.kind), ' ', el('bdi', {}, r.name), r.path.length ? el('span', { className: 'path' }, ` in ${r.path.join(' › ')}`) : '')),
    );
    const n = page.records.length;
    const more = page.nextCursor ? ` (the first ${n} shown)` : '';
    status.textContent = n === 0
      ? state === 'stale' ? 'Every printed label is up to date.' : 'Every record has a printed label.'
      : `${n}${page.nextCursor ? '+' : ''} record${n === 1 ? '' : 's'} ${state === 'stale' ? 'with an out-of-date label' : 'never printed'}${more}.`;
    $<HTMLButtonElement>('reprint-all').hidden = n === 0;
    // The count on the button: one click prints them all, so say how many (at least) it prints.
    $('reprint-all').textContent = `${state === 'stale' ? 'Reprint' : 'Print'} ${n === 1 ? 'this label' : `all ${n}${page.nextCursor ? '+' : ''} labels`}`;
  } catch (err) {
    status.textContent = '';
    showError(err, '');
  }
}

async function reprintAll(): Promise<void> {
  const api = signedIn.api;
  const button = $<HTMLButtonElement>('reprint-all');
  if (!api || isBusy(button)) return;
  busy(button, true);
  $('reprint-error').hidden = true;
  const state = stateOf();
  const run: Run = { printed: 0, total: 0, more: false };
  try {
    do {
      const limit = Math.min(BATCH, signedIn.session?.printQuotaPerMinute ?? BATCH);
      const sent = await sendWithinQuota(api, { selection: { labels: state, limit }, copies: 1 }, run);
      if (!sent) return; // signed out while waiting
      run.more = sent.more ?? false;
      const batch = await watch(sent, run, Date.now());
      if (!signedIn.api) return;
      run.printed += batch.printed;
      run.total += batch.total;
      if (batch.state === 'failed') throw new Error(`${batch.failed} of a batch's ${batch.total} labels failed (see the print jobs), so the rest were not sent. ${run.printed} printed.`);
      if (batch.state === 'pending') throw new Error(`A batch is still printing after ${WATCH_MS / 60_000} minutes, so the rest were not sent. ${run.printed} printed so far.`);
    } while (run.more);
  } catch (err) {
    showError(err, run.total ? `${run.printed} printed; the rest were not sent.` : 'Nothing was printed.');
  } finally {
    busy(button, false);
    await loadReprint();
  }
}

/** Sends the batch; while the print quota is used up (429), waits its Retry-After and sends it again. Undefined: signed out meanwhile. */
async function sendWithinQuota(api: Studio, request: PrintBatchRequest, run: Run): Promise<PrintBatch | undefined> {
  for (;;) {
    try {
      return await api.printBatch(request);
    } catch (err) {
      const wait = retryAfterOf(err);
      if (statusOf(err) !== 429 || wait === undefined || wait > MAX_QUOTA_WAIT_S) throw err;
      $('reprint-progress-text').textContent = `${run.printed} printed. The print quota is used up for this minute: the next batch goes in ${wait} s.`;
      await new Promise<void>((resolve) => (timer = window.setTimeout(resolve, wait * 1000)));
      if (signedIn.api !== api) return undefined;
    }
  }
}

/** The batches sent so far by one click: their labels printed and in all, and whether the last said there are more. */
interface Run {
  printed: number;
  total: number;
  more: boolean;
}

/** The batch as it is once done, or once WATCH_MS have passed; the progress shows the whole run. */
async function watch(batch: PrintBatch, run: Run, started: number): Promise<PrintBatch> {
  const progress = $<HTMLProgressElement>('reprint-progress');
  progress.max = run.total + batch.total;
  progress.value = run.total + batch.printed + batch.failed;
  progress.hidden = false;
  const printed = run.printed + batch.printed;
  const total = run.total + batch.total;
  const failed = batch.failed ? `, ${batch.failed} failed` : '';
  const more = run.more ? ', more to come' : '';
  $('reprint-progress-text').textContent = batch.state === 'pending' || (run.more && batch.state === 'printed')
    ? `Printing: ${printed} of ${total} printed${failed}${more}.`
    : `Done: ${printed} of ${total} printed${failed}.`;
  if (batch.state !== 'pending' || Date.now() - started > WATCH_MS || !signedIn.api) return batch;
  await new Promise<void>((resolve) => (timer = window.setTimeout(resolve, 1000)));
  return watch(await signedIn.api.batch(batch.id), run, started);
}

function showError(err: unknown, notDone: string): void {
  const box = $('reprint-error');
  box.textContent = failureText(err, notDone);
  box.hidden = false;
}
