/**
 * "Labels to reprint" (issue 32): the records whose printed label is out of date (or, switched,
 * that never had one), listed from listRecords?labels=..., with one click to reprint them all
 * as one batch (selection {labels}), to the printer the service's rules choose, and its
 * progress until every job is done. The list reloads when the batch finishes.
 */
import { failureText, type PrintBatch } from './api.js';
import { $, busy, el, isBusy } from './dom.js';
import { signedIn } from './session.js';

type LabelState = 'stale' | 'neverPrinted';
const SHOWN = 50;
const WATCH_MS = 300_000;
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
  try {
    const batch = await api.printBatch({ selection: { labels: stateOf() }, copies: 1 });
    await watch(batch, Date.now());
  } catch (err) {
    showError(err, 'Nothing was printed.');
  } finally {
    busy(button, false);
  }
}

async function watch(batch: PrintBatch, started: number): Promise<void> {
  const progress = $<HTMLProgressElement>('reprint-progress');
  progress.max = batch.total;
  progress.value = batch.printed + batch.failed + batch.cancelled;
  progress.hidden = false;
  const failed = batch.failed ? `, ${batch.failed} failed` : '';
  $('reprint-progress-text').textContent = batch.state === 'pending' ? `Printing: ${batch.printed} of ${batch.total} printed${failed}.` : `Done: ${batch.printed} of ${batch.total} printed${failed}.`;
  if (batch.state !== 'pending' || Date.now() - started > WATCH_MS || !signedIn.api) {
    await loadReprint();
    return;
  }
  await new Promise<void>((resolve) => (timer = window.setTimeout(resolve, 1000)));
  await watch(await signedIn.api.batch(batch.id), started);
}

function showError(err: unknown, notDone: string): void {
  const box = $('reprint-error');
  box.textContent = failureText(err, notDone);
  box.hidden = false;
}
