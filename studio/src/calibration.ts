/**
 * Sheet calibration: the offset an office printer needs on a sheet product, measured once
 * with the product's test page (createSheet with `calibration`) and saved for the whole
 * deployment (putSheetCalibration, templates:write); every sheet of the product is then
 * printed with it. The test page is printed with the offset in the form, so a person adds
 * what they read on it to the numbers already there, saves, and can print it again to check.
 */
import { failureText, type SheetCalibration, type SheetProduct } from './api.js';
import { $, busy, isBusy } from './dom.js';
import { download, SHEETS, sheetOptions } from './sheets.js';
import { can, signedIn } from './session.js';

const LIMIT_MM = 5;
/** The saved calibration of the product shown (null: none), once read. */
let saved: SheetCalibration | null = null;
let readSeq = 0;

const sheet = () => $<HTMLSelectElement>('calibration-sheet').value as SheetProduct;
const sheetName = () => SHEETS[sheet()].split(' · ')[0] ?? sheet();

/** "0.5 mm left and 1 mm down", or "no offset". */
export function offsetInWords(x: number, y: number): string {
  const part = (v: number, plus: string, minus: string) => (v === 0 ? null : `${Math.abs(v)} mm ${v > 0 ? plus : minus}`);
  const parts = [part(x, 'right', 'left'), part(y, 'down', 'up')].filter((p) => p !== null);
  return parts.length > 0 ? parts.join(' and ') : 'no offset';
}

export function initCalibration(): void {
  $<HTMLSelectElement>('calibration-sheet').append(...sheetOptions());
  $('calibration-sheet').addEventListener('change', () => {
    // What was said (a test page, a save) was about the product before.
    $('calibration-done').textContent = '';
    void readSaved();
  });
  // Read when opened: most sessions never calibrate (and "none saved" is a 404 the browser logs).
  $('calibration-open').addEventListener('toggle', () => {
    if ($<HTMLDetailsElement>('calibration-open').open) void readSaved();
  });
  $('calibration-page').addEventListener('click', () => void testPage());
  $('calibration-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void save();
  });
  $('calibration-clear').addEventListener('click', () => void clear());
}

/** Signed in: the panel for a token that may read (saving and clearing need templates:write). */
export function showCalibration(): void {
  const panel = $('calibration');
  panel.hidden = !can('labels:read');
  if (panel.hidden) return;
  const writes = can('templates:write');
  const why = $('calibration-why');
  why.hidden = writes;
  why.textContent = writes ? '' : 'Saving and clearing a calibration need a token with templates:write; the test page works with this one.';
  $<HTMLButtonElement>('calibration-save').disabled = !writes;
  $('calibration-done').textContent = '';
  if ($<HTMLDetailsElement>('calibration-open').open) void readSaved();
}

/** The saved calibration of the chosen product, into the form. */
async function readSaved(): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const seq = ++readSeq;
  const status = $('calibration-saved');
  $('calibration-error').hidden = true;
  status.textContent = 'Reading the saved calibration…';
  try {
    const found = await api.calibration(sheet());
    if (seq !== readSeq) return;
    showSaved(found);
  } catch (err) {
    if (seq !== readSeq) return;
    saved = null;
    status.textContent = failureText(err, 'The saved calibration could not be read.');
  }
}

function showSaved(found: SheetCalibration | null): void {
  saved = found;
  $<HTMLInputElement>('calibration-x').value = String(found?.offsetXMm ?? 0);
  $<HTMLInputElement>('calibration-y').value = String(found?.offsetYMm ?? 0);
  $('calibration-saved').textContent = found
    ? `Saved for ${sheetName()}: everything printed moves ${offsetInWords(found.offsetXMm, found.offsetYMm)} (since ${new Date(found.updatedAt).toLocaleString()}).`
    : `Nothing is saved for ${sheetName()}: its sheets print without an offset.`;
  // Nothing to clear, or not this token's to clear: no button (a disabled secondary button reads as live).
  $('calibration-clear').hidden = !found || !can('templates:write');
}

/** The form's offsets, or null after marking what is wrong. */
function formOffsets(): { x: number; y: number } | null {
  const read = (id: string, what: string) => {
    const input = $<HTMLInputElement>(id);
    const value = Number(input.value);
    const wrong = input.value.trim() === '' || !Number.isFinite(value) || Math.abs(value) > LIMIT_MM;
    input.setCustomValidity(wrong ? `${what} must be a number from -${LIMIT_MM} to ${LIMIT_MM} mm.` : '');
    if (wrong) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    return wrong ? null : value;
  };
  const x = read('calibration-x', 'Move right');
  const y = read('calibration-y', 'Move down');
  const error = $('calibration-error');
  if (x === null || y === null) {
    error.textContent = [x === null ? $<HTMLInputElement>('calibration-x').validationMessage : '', y === null ? $<HTMLInputElement>('calibration-y').validationMessage : ''].filter(Boolean).join(' ');
    error.hidden = false;
    return null;
  }
  error.hidden = true;
  return { x, y };
}

const SOURCES: Record<string, string> = { request: 'the offset in the form', saved: 'the saved calibration', none: 'none is saved' };

/** The product's test page, printed with the offset in the form (the saved one when the form holds it). */
async function testPage(): Promise<void> {
  const api = signedIn.api;
  const button = $<HTMLButtonElement>('calibration-page');
  const offsets = formOffsets();
  if (!api || !offsets || isBusy(button)) return;
  busy(button, true);
  const same = offsets.x === (saved?.offsetXMm ?? 0) && offsets.y === (saved?.offsetYMm ?? 0);
  try {
    const { pdf, offset } = await api.sheet({ sheet: sheet(), calibration: true, copies: 1, startAt: 1, guides: false, ...(same ? {} : { offsetXMm: offsets.x, offsetYMm: offsets.y }) });
    download(pdf, `calibration-${sheet()}.pdf`);
    const m = /^(request|saved|none) x=(\S+) y=(\S+)$/.exec(offset ?? '');
    $('calibration-done').textContent = m
      ? `The test page is printed with ${offsetInWords(Number(m[2]), Number(m[3]))} (${SOURCES[m[1]!]}). Add what you read on it to the numbers in the form.`
      : 'The test page is downloaded.';
  } catch (err) {
    $('calibration-error').textContent = failureText(err, 'No test page was made.');
    $('calibration-error').hidden = false;
  } finally {
    busy(button, false);
  }
}

async function save(): Promise<void> {
  const api = signedIn.api;
  const button = $<HTMLButtonElement>('calibration-save');
  const offsets = formOffsets();
  if (!api || !offsets || isBusy(button)) return;
  busy(button, true);
  try {
    showSaved(await api.saveCalibration(sheet(), offsets.x, offsets.y));
    $('calibration-done').textContent = `Saved: ${sheetName()} sheets now print with ${offsetInWords(offsets.x, offsets.y)}.`;
  } catch (err) {
    $('calibration-error').textContent = failureText(err, 'Not saved.');
    $('calibration-error').hidden = false;
  } finally {
    busy(button, false);
  }
}

async function clear(): Promise<void> {
  const api = signedIn.api;
  const button = $<HTMLButtonElement>('calibration-clear');
  if (!api || isBusy(button)) return;
  busy(button, true);
  $('calibration-error').hidden = true;
  try {
    await api.clearCalibration(sheet());
    showSaved(null);
    $('calibration-done').textContent = `Cleared: ${sheetName()} sheets print without an offset.`;
    // Its button is gone now: keep the keyboard in the form.
    $<HTMLSelectElement>('calibration-sheet').focus();
  } catch (err) {
    $('calibration-error').textContent = failureText(err, 'Not cleared.');
    $('calibration-error').hidden = false;
  } finally {
    busy(button, false);
  }
}
