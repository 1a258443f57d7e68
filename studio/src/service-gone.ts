/**
 * When the service cannot be reached, the page says so once, at its top (role alert),
 * and the panels say only what did not happen: not the same sentence in every panel.
 * What refreshes itself (the job list, a job or batch being watched) stops and shows
 * nothing stale; the first answer from the service (any request, or "Try again")
 * takes the message away and picks them up again.
 */
import { $, busy, el, isBusy } from './dom.js';
import type { JobsPanel } from './jobs.js';
import { signedIn } from './session.js';

let gone = false;
/** A job or batch that was being watched when the service went away: watched again when it is back. */
let resume: (() => void) | null = null;
let jobs: JobsPanel | null = null;

export function initServiceGone(panel: JobsPanel): void {
  jobs = panel;
  $('service-retry').addEventListener('click', async () => {
    const button = $<HTMLButtonElement>('service-retry');
    if (!signedIn.api || isBusy(button)) return;
    busy(button, true);
    // Any answer says it is back (serviceReach); no answer leaves the message up.
    await signedIn.api.session().catch(() => {});
    busy(button, false);
  });
}

/** Whether the last request was answered at all (the client's onReach). */
export function serviceReach(reachable: boolean): void {
  if (reachable === !gone) return;
  gone = !reachable;
  $('service-gone').hidden = reachable;
  if (!reachable) {
    jobs?.pause();
    return;
  }
  void jobs?.refresh();
  const again = resume;
  resume = null;
  again?.();
}

/** Watches again (a job, a batch) once the service answers. */
export function whenBack(watch: () => void): void {
  resume = watch;
}

/** Signed out: no message, nothing to resume. */
export function forgetServiceGone(): void {
  gone = false;
  resume = null;
  $('service-gone').hidden = true;
}

/** "Not updated since 10:42:03": a watched job or batch whose state the service could not be asked for. */
export const staleSince = () => el('span', { className: 'stale' }, ` Not updated since ${new Date().toLocaleTimeString()}.`);
