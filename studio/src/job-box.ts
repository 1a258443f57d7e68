/**
 * "Print this label" and the job box under it: the job is watched until it is printed
 * or failed; while it waits in the queue it can be cancelled (as in the job list: the
 * same button and the same cancel), and a failed one tried again.
 */
import { failureText, jobIdOf, messageOf, unreachable, type PrintJob } from './api.js';
import { $, busy, el, isBusy } from './dom.js';
import { cancelWaitingJob, jobButton, jobProgress, printerProblem, shownState, type JobsPanel } from './jobs.js';
import { heldLine, moveControl, moveFailed } from './job-move.js';
import { recordRef } from './preview.js';
import { chosenPrinter, fleet, printerTitle } from './printers.js';
import { staleSince, whenBack } from './service-gone.js';
import { can, signedIn } from './session.js';

/** How long a job is watched after it was sent (a job waiting to retry for longer is then left to the job list). */
const WATCH_MS = 120_000;

let jobTimer: number | undefined;
let jobs: JobsPanel | null = null;
/** What the box last said about a job (a Cancel's outcome). */
let said: { job: string; text: string } | null = null;

export function initJobBox(panel: JobsPanel): void {
  jobs = panel;
  $('print').addEventListener('click', async () => {
    const api = signedIn.api;
    const label = recordRef();
    const print = $<HTMLButtonElement>('print');
    if (!api || !label || isBusy(print)) return;
    busy(print, true);
    window.clearTimeout(jobTimer);
    try {
      // On the printer chosen beside the button (the service's choice preselected there).
      const printJob = await api.printLabel(label, $<HTMLSelectElement>('template').value, chosenPrinter());
      void jobs?.refresh();
      await watchJob(jobIdOf(printJob));
    } catch (err) {
      showJob(null, failureText(err, ''));
    } finally {
      busy(print, false);
    }
  });
}

/** Another label is shown: its job box is empty (the job itself goes on, in the job list). */
export function hideJob(): void {
  $('job').hidden = true;
}

/** Signed out: nothing is watched. */
export function stopWatchingJob(): void {
  window.clearTimeout(jobTimer);
}

async function watchJob(id: string, started = Date.now()): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  window.clearTimeout(jobTimer);
  try {
    const job = await api.printJob(id);
    showJob(job);
    // A held job is watched too: a move, or its printer coming right, sends it on.
    if ((job.state === 'queued' || job.state === 'printing') && Date.now() - started < WATCH_MS) {
      jobTimer = window.setTimeout(() => void watchJob(id, started), 1000);
    }
  } catch (err) {
    if (!unreachable(err)) return showJob(null, messageOf(err));
    // The job exists and may print: its last known state stays, marked as such, until the service is back.
    $('job').append(staleSince());
    whenBack(() => void watchJob(id, Date.now()));
  }
}

function showJob(job: PrintJob | null, error?: string): void {
  const box = $('job');
  box.hidden = false;
  if (!job) {
    box.className = 'job failed';
    box.replaceChildren(el('strong', {}, error ? 'Not printed: ' : 'Not printed.'), error ?? '');
    return;
  }
  const shown = shownState(job);
  box.className = `job ${shown}`;
  const state = el('strong', { className: 'state' }, shown);
  state.dataset.state = shown;
  const progress = jobProgress(job);
  const lines: (Node | string)[] = ['Print job ', state, ` · ${job.title}${fleet().length > 1 ? ` · on ${printerTitle(job.printer)}` : ''}${progress ? ` · ${progress}` : ''}`];
  if (shown === 'held') lines.push(heldLine(job));
  if (job.lastError && (shown === 'queued' || shown === 'held' || shown === 'failed')) lines.push(el('br'), printerProblem(job.lastError));
  if (job.possibleDuplicate) lines.push(el('br'), 'It may have printed twice.');
  // Focus stays on a button of the box when a refresh redraws it (as in the job list).
  const focused = document.activeElement instanceof HTMLElement && box.contains(document.activeElement) ? document.activeElement.dataset.focusKey : undefined;
  box.dataset.job = job.id;
  box.replaceChildren(...lines);
  if (said?.job === job.id) box.append(el('p', { className: 'said' }, said.text));
  if (shown === 'failed' && can('labels:print')) {
    // A failed job stays so; trying again is a new job for the same label. (A cancelled one was
    // stopped on purpose: "Print this label", just above, prints it after all.)
    const again = el('button', { type: 'button', className: 'secondary' }, 'Try again');
    again.addEventListener('click', () => $('print').click());
    box.append(el('div', { className: 'row' }, again));
  }
  const api = signedIn.api;
  if ((shown === 'queued' || shown === 'held') && api && can('labels:print')) {
    // Waiting (not yet handed to the printer, held, or waiting to try again): it can still be stopped.
    const cancel = jobButton(job, 'cancel', 'Cancel printing', () => cancelJob(job), (err) => say(job, failureText(err, 'Not cancelled.')));
    // Held: moved to another printer, or cancelled, side by side.
    const move = shown === 'held' ? moveControl(api, job, 'box', (what) => movedJob(job, what), (err) => say(job, moveFailed(job, err))) : null;
    if (move) move.append(cancel);
    box.append(move ?? el('div', { className: 'row' }, cancel));
  }
  if (focused) box.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
}

async function cancelJob(job: PrintJob): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const what = await cancelWaitingJob(api, job);
  void jobs?.refresh();
  // The box as the job is now (cancelled, or what became of it), with what happened said under it.
  say(job, what);
  await watchJob(job.id);
  // Its button is gone: keep the keyboard on the label's print button.
  if (!document.activeElement || document.activeElement === document.body) $('print').focus();
}

/** After a move: the box as the job is now (on its way on the new printer), with what happened said under it. */
async function movedJob(job: PrintJob, what: string): Promise<void> {
  void jobs?.refresh();
  say(job, what);
  await watchJob(job.id);
  if (!document.activeElement || document.activeElement === document.body) $('print').focus();
}

/** A sentence under the job in the box (what a Cancel did, or why it did not), kept while the box shows that job. */
function say(job: PrintJob, text: string): void {
  said = { job: job.id, text };
  const box = $('job');
  if (box.dataset.job !== job.id) return;
  const line = el('p', { className: 'said' }, text);
  const here = box.querySelector('.said') ?? box.querySelector('.row, .move');
  if (here?.classList.contains('said')) here.replaceWith(line);
  else if (here) here.before(line);
  else box.append(line);
}
