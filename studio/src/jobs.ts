/**
 * The studio's print jobs: the signed-in token's recent jobs (listPrintJobs), newest
 * first, filtered by state, with the printer's error on failed ones, a Retry that
 * puts a failed job back in the queue (retryPrintJob) and a Cancel for a job still
 * waiting (cancelPrintJob). While any listed job is pending the list refreshes itself;
 * jobs outlive the tab, so a later session sees them too.
 */
import { failureText, messageOf, statusOf, unreachable, type PrintJob, type PrintJobFilters, type Studio } from './api.js';
import { $, el } from './dom.js';
import { heldLine, isHeld, moveControl, moveFailed } from './job-move.js';
import { fleet, printerTitle } from './printers.js';
import { stockTitle } from './stocks.js';

const PAGE_SIZE = 10;
/** How often a list with pending jobs is read again. */
const REFRESH_MS = 2000;
const STATE_NAMES: Record<PrintJob['state'], string> = { queued: 'Queued', printing: 'Printing', printed: 'Printed', failed: 'Failed' };
/**
 * A cancelled job is a failed one with `cancelledAt` (the API's states are a closed list); people see it as cancelled.
 * A held one is queued with `heldReason` (its printer cannot print it now); people see it as held.
 */
export type ShownState = PrintJob['state'] | 'cancelled' | 'held';
export const shownState = (job: PrintJob): ShownState => (job.cancelledAt !== null ? 'cancelled' : isHeld(job) ? 'held' : job.state);
const SHOWN_NAMES: Record<ShownState, string> = { ...STATE_NAMES, cancelled: 'Cancelled', held: 'Held' };
/** Still waiting to print (queued, held or being sent): it can change, and a queued or held one be cancelled. */
export const waitingState = (state: ShownState | string | undefined): boolean => state === 'queued' || state === 'held' || state === 'printing';
const pending = (job: PrintJob) => job.state === 'queued' || job.state === 'printing';
const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
/** Record ids that are UUIDs mean nothing to a person; the job's title names the record. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Errors that mean the printer was not reached at all (Node's socket error codes). */
const UNREACHABLE = /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|timed out/i;

/** The printer's error in plain words: "cannot be reached" for a network failure, else what it said. */
export function printerProblem(lastError: string): string {
  // The system's words stay in brackets, for whoever fixes the printer.
  return UNREACHABLE.test(lastError) ? `The printer cannot be reached (${lastError}).` : `Printer said: ${lastError}`;
}

/**
 * A button that acts on one job (Retry, Cancel printing), named with the job's title for a
 * screen reader. It is disabled while it acts; if the act fails it is enabled again and
 * `failed` says why where the button's panel says things.
 */
export function jobButton(job: PrintJob, key: string, label: string, act: () => Promise<void>, failed: (err: unknown) => void): HTMLButtonElement {
  const button = el('button', { type: 'button', className: 'secondary' }, label);
  button.setAttribute('aria-label', `${label} ${job.title}`);
  button.dataset.focusKey = `${key}:${job.id}`;
  button.addEventListener('click', () => {
    button.disabled = true;
    void act().catch((err: unknown) => {
      button.disabled = false;
      failed(err);
    });
  });
  return button;
}

/**
 * Cancels a job still waiting (cancelPrintJob), and says what became of it: cancelled, or
 * (409: no longer waiting) in words rather than the service's job id, what it does instead.
 * The one way the studio cancels a job: the job list and the job box under the label.
 */
export async function cancelWaitingJob(api: Studio, job: PrintJob): Promise<string> {
  try {
    await api.cancelPrintJob(job.id);
  } catch (err) {
    if (statusOf(err) !== 409) throw err;
    const now = await api.printJob(job.id);
    const why = now.state === 'printing' ? 'it is being sent to the printer and may print' : now.state === 'printed' ? 'it has printed' : 'it failed meanwhile';
    return `${job.title} was not cancelled: ${why}.`;
  }
  return `${job.title}: cancelled; it will not print.`;
}

/**
 * A job's progress for a person: nothing about attempts once printed at the first go;
 * a job waiting to retry says why and when it is tried next.
 */
export function jobProgress(job: PrintJob): string {
  if (job.cancelledAt !== null) return `cancelled at ${clock.format(new Date(job.cancelledAt))}, not printed`;
  if (job.state === 'printed') return job.attempts > 1 ? `printed on attempt ${job.attempts}` : '';
  if (job.state === 'failed') return `gave up after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}`;
  if (job.state === 'queued' && job.attempts > 0) {
    return `waiting to try again at ${clock.format(new Date(job.nextAttemptAt))} (${job.attempts} of ${job.maxAttempts} attempts made)`;
  }
  return job.state === 'printing' ? `attempt ${job.attempts + 1} of ${job.maxAttempts}` : '';
}

export interface JobsPanel {
  /** Shows the panel for a token that may print, and lists its jobs. */
  show(api: Studio): void;
  hide(): void;
  /** Reads the first page again (after the studio printed something, or the service came back). */
  refresh(): Promise<void>;
  /** Empties the list and stops refreshing it: the service cannot be reached. */
  pause(): void;
}

export function jobsPanel(): JobsPanel {
  let api: Studio | null = null;
  let cursor: string | null = null;
  let timer: number | undefined;
  /** Answers to an older read are dropped: the filter may have changed since. */
  let seq = 0;
  const stateFilter = $<HTMLSelectElement>('jobs-state');

  async function load(append = false): Promise<void> {
    if (!api) return;
    window.clearTimeout(timer);
    const mine = ++seq;
    const status = $('jobs-status');
    // A refresh reads as many jobs as are shown, so pages fetched with "More jobs" stay.
    const shown = $('jobs-list').childElementCount;
    const query: PrintJobFilters = { limit: append ? PAGE_SIZE : Math.min(200, Math.max(PAGE_SIZE, shown)) };
    if (stateFilter.value) query.state = stateFilter.value as PrintJob['state'];
    if (append && cursor) query.cursor = cursor;
    try {
      const page = await api.printJobs(query);
      if (mine !== seq) return;
      cursor = page.nextCursor ?? null;
      const list = $('jobs-list');
      // Keep focus where it was when a refresh redraws the row it is on (the job box's buttons have the same keys: not those).
      const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.focusKey : undefined;
      const rows = page.jobs.map(jobRow);
      if (append) list.append(...rows);
      else list.replaceChildren(...rows);
      if (focused) list.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
      const jobs = [...list.querySelectorAll<HTMLElement>('li[data-state]')];
      const waiting = jobs.filter((li) => waitingState(li.dataset.state)).length;
      const held = jobs.filter((li) => li.dataset.state === 'held').length;
      // A page is not the total: with more to fetch, say these are the latest.
      const count = cursor ? `The latest ${jobs.length} jobs (more below)` : `${jobs.length} job${jobs.length === 1 ? '' : 's'}`;
      status.textContent =
        jobs.length === 0
          ? stateFilter.value ? `No ${stateFilter.selectedOptions[0]?.textContent?.toLowerCase() ?? stateFilter.value} jobs.` : 'No print jobs yet.'
          : `${count}${waiting ? `, ${waiting} waiting to print${held ? `, ${held} of them held` : ''} (updating)` : ''}.`;
      $('jobs-more').hidden = !cursor;
      if (waiting > 0 || page.jobs.some(pending)) timer = window.setTimeout(() => void load(), REFRESH_MS);
    } catch (err) {
      // Gone: the page says so once and calls pause() (main.ts).
      if (mine === seq && !unreachable(err)) status.textContent = messageOf(err);
    }
  }

  /** Nothing stale while the service cannot be reached (rows read before would pass for now): no rows, no refreshing, until refresh(). */
  function pause(): void {
    seq++;
    window.clearTimeout(timer);
    cursor = null;
    $('jobs-list').replaceChildren();
    $('jobs-status').textContent = '';
    $('jobs-more').hidden = true;
  }

  function jobRow(job: PrintJob): HTMLLIElement {
    const state = shownState(job);
    const badge = el('span', { className: `badge ${state}` }, SHOWN_NAMES[state]);
    const title = el('span', { className: 'title', dir: 'auto' }, job.title);
    const created = el('time', { dateTime: job.createdAt }, when.format(new Date(job.createdAt)));
    // Which record it prints (two shelves may share a name) and whether a batch sent it.
    const which: (Node | string)[] = job.record && !UUID.test(job.record.id) ? [el('span', { className: 'record', dir: 'auto' }, `${job.record.kind} ${job.record.id}`), ' · '] : [];
    if (job.batchId) which.push('in a batch · ');
    const progress = jobProgress(job);
    const meta = el('span', { className: 'meta' }, ...which, `on ${stockTitle(job.template)} · ${fleet().length > 1 ? `${printerTitle(job.printer)} · ` : ''}`, created, ...(progress ? [` · ${progress}`] : []));
    const li = el('li', {}, el('div', { className: 'head' }, title, badge), meta);
    li.dataset.state = state;
    li.dataset.job = job.id;
    // A failed job, or one waiting to retry, says what went wrong (a cancelled one is over: no error to fix).
    if ((state === 'failed' || state === 'queued') && job.lastError) li.append(el('p', { className: 'printer-error' }, printerProblem(job.lastError)));
    if (job.possibleDuplicate) li.append(el('p', { className: 'meta' }, 'It may have printed twice.'));
    if (state === 'failed') li.append(jobButton(job, 'retry', 'Retry', () => retryJob(job), said(job, 'not retried.')));
    // Waiting (not yet handed to the printer, held, or waiting to try again): it can still be stopped.
    const cancel = state === 'queued' || state === 'held' ? jobButton(job, 'cancel', 'Cancel printing', () => cancelJob(job), said(job, 'not cancelled.')) : null;
    const move = state === 'held' && api ? moveControl(api, job, 'list', done, (err) => void ($('jobs-status').textContent = moveFailed(job, err))) : null;
    if (state === 'held') li.append(heldLine(job));
    // A held job's two ways on, side by side: move it, or cancel it.
    if (move && cancel) move.append(cancel);
    if (move) li.append(move);
    else if (cancel) li.append(cancel);
    return li;
  }

  /** A job button's failure, said in the list's status line. */
  const said = (job: PrintJob, notDone: string) => (err: unknown) => {
    $('jobs-status').textContent = `${job.title}: ${failureText(err, notDone)}`;
  };

  async function retryJob(job: PrintJob): Promise<void> {
    if (!api) return;
    await api.retryPrintJob(job.id);
    // Shown among all jobs, where it can be watched on its way to printed (a list of failed ones would drop it).
    stateFilter.value = '';
    await done(`${job.title}: back in the queue.`);
  }

  async function cancelJob(job: PrintJob): Promise<void> {
    if (!api) return;
    await done(await cancelWaitingJob(api, job));
  }

  /** After a retry or cancel: the list as it is now, with what happened said first. */
  async function done(what: string): Promise<void> {
    await load();
    $('jobs-status').textContent = `${what} ${$('jobs-status').textContent}`;
    // Its button is gone: keep the keyboard in the panel.
    if (!document.activeElement || document.activeElement === document.body) stateFilter.focus();
  }

  stateFilter.addEventListener('change', () => {
    $('jobs-list').replaceChildren();
    void load();
  });
  $('jobs-refresh').addEventListener('click', () => void load());
  $('jobs-more').addEventListener('click', () => void load(true));

  return {
    show(studio) {
      api = studio;
      $('jobs').hidden = false;
      void load();
    },
    hide() {
      api = null;
      seq++;
      window.clearTimeout(timer);
      cursor = null;
      $('jobs').hidden = true;
      $('jobs-list').replaceChildren();
      $('jobs-status').textContent = '';
      stateFilter.value = '';
    },
    refresh: () => load(),
    pause,
  };
}
