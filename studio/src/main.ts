/**
 * The label studio: sign in with a token, find a record, see its label at true
 * size on a chosen template, print it and watch the job. Plain DOM, no framework:
 * one page, a handful of controls. This module signs in and out and starts the
 * others, each with one job:
 *   find.ts            search and browse records
 *   preview.ts         the record's label at true size, its warnings in words
 *   template-choice.ts the Template list (the service's stocks and saved templates)
 *   stocks.ts          the label stocks, as the service lists them
 *   canvas-designer.ts the designer: elements placed on the label at true size (canvas-math.ts, elements.ts, element-wire.ts,
 *                      lines-to-elements.ts for designs of text lines, undo.ts)
 *   printers.ts        the printer picker: the fleet's status, the rule's choice, a warning before a print that would be held
 *   job-box.ts         "Print this label" and its job (cancel, try again, a held job's move)
 *   job-move.ts        a held job's reason and its move to another printer
 *   jobs.ts            the token's print jobs
 *   selection.ts       what is selected, and how many labels that is
 *   batch.ts           printing the selection as a batch
 *   sheets.ts          the selection as a sheet PDF
 *   calibration.ts     a sheet product's saved printer offset, with its test page
 *   action-bar.ts      the phone's bar of main actions
 *   service-gone.ts    the service going away and coming back
 */
import { connect, messageOf, statusOf } from './api.js';
import { initActionBar, showActionBar } from './action-bar.js';
import { initBatch, stopWatchingBatch } from './batch.js';
import { hideReprint, initReprint, showReprint } from './reprint.js';
import { initCalibration, showCalibration } from './calibration.js';
import { initCanvasDesigner, offerCanvasFields } from './canvas-designer.js';
import { $, el } from './dom.js';
import { clearResults, initFind } from './find.js';
import { initJobBox, stopWatchingJob } from './job-box.js';
import { jobsPanel } from './jobs.js';
import { initPreview } from './preview.js';
import { forgetPrinters, initPrinters, loadFleet } from './printers.js';
import { clearSelection, initSelection } from './selection.js';
import { forgetServiceGone, initServiceGone, serviceReach } from './service-gone.js';
import { can, signedIn } from './session.js';
import { initSheets } from './sheets.js';
import { loadStocks } from './stocks.js';
import { loadTemplates } from './template-choice.js';
import { forgetToken, storeToken, storedToken } from './token.js';

const jobs = jobsPanel();

async function signIn(token: string): Promise<void> {
  const candidate = connect(token, {
    onUnauthorized: () => {
      if (signedIn.api === candidate) sessionEnded();
    },
    onReach: (reachable) => {
      if (signedIn.api === candidate) serviceReach(reachable);
    },
  });
  signedIn.session = await candidate.session();
  signedIn.api = candidate;
  storeToken(token);
  showSession();
  $('sign-in').hidden = true;
  $('sign-in-error').hidden = true;
  $('studio').hidden = false;
  // Busy until the lists below are filled: screen readers wait, and so can anyone scripting the page.
  $('studio').setAttribute('aria-busy', 'true');
  try {
    // The stocks this service draws for (listStocks, labels:read), before the lists that name them.
    if (can('labels:read')) await loadStocks(candidate);
    // The deployment's custom fields (listFields), for the designer's field list; none if they cannot be read.
    const fields = can('labels:read') ? await candidate.fields().catch(() => []) : [];
    offerCanvasFields(fields);
    if (can('labels:print')) {
      // The fleet first: a held job in the list offers its move.
      await loadFleet(candidate);
      jobs.show(candidate);
      if (can('labels:read')) showReprint();
    }
    await loadTemplates();
    showCalibration();
  } finally {
    $('studio').removeAttribute('aria-busy');
  }
  $<HTMLInputElement>('q').focus();
}

function signOut(): void {
  forgetToken();
  signedIn.api = null;
  signedIn.session = null;
  hideReprint();
  stopWatchingJob();
  stopWatchingBatch();
  forgetPrinters();
  jobs.hide();
  forgetServiceGone();
  clearSelection();
  $('session').hidden = true;
  $('studio').hidden = true;
  $('preview').hidden = true;
  showActionBar();
  clearResults();
  $('sign-in').hidden = false;
  $<HTMLInputElement>('token').value = '';
  $<HTMLInputElement>('token').focus();
}

/**
 * The token stopped working mid-session (revoked or expired): no dead session with
 * live buttons, back to sign-in with the reason.
 */
function sessionEnded(): void {
  signOut();
  const error = $('sign-in-error');
  error.textContent = 'Your session ended: the token was revoked or has expired. Sign in with a valid token.';
  error.hidden = false;
}

function showSession(): void {
  const session = signedIn.session;
  if (!session) return;
  $('session-name').textContent = session.name;
  $('session-name').dir = 'auto';
  $('scopes').replaceChildren(...session.scopes.map((s) => el('li', { className: 'scope' }, s)));
  $('session').hidden = false;
}

$('sign-in-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const token = $<HTMLInputElement>('token').value.trim();
  const error = $('sign-in-error');
  error.hidden = true;
  signIn(token).catch((err: unknown) => {
    error.textContent = statusOf(err) === 401 ? 'That token is not valid (or was revoked).' : messageOf(err);
    error.hidden = false;
  });
});
$('sign-out').addEventListener('click', signOut);

initServiceGone(jobs);
initFind();
initPreview();
initCanvasDesigner();
initPrinters();
initJobBox(jobs);
initSelection();
initBatch(jobs);
initSheets();
initCalibration();
initReprint();
initActionBar();

const token = storedToken();
if (token) {
  signIn(token).catch(() => signOut());
} else {
  $<HTMLInputElement>('token').focus();
}
