/**
 * The printer picker beside "Print this label" (issue 31): every printer of the fleet with
 * its status in words, its roll and whether it prints red, the one the service's routing
 * rule chooses for the label in view preselected, and before printing, a warning in the
 * service's words when the chosen printer cannot print this label now. The service
 * decides both (listPrinters with the label named: `suggested`, `canPrint`, `holdReason`):
 * the page holds no copy of the rules.
 */
import { failureText, type LabelRef, type Printer, type PrinterAdvice, type Studio } from './api.js';
import { $, busy, el, isBusy } from './dom.js';
import { can, signedIn } from './session.js';
import { stockTitle } from './stocks.js';

const STATE_WORDS: Record<NonNullable<Printer['status']>['state'], string> = {
  ready: 'ready',
  printing: 'printing',
  attention: 'needs attention',
  offline: 'not answering',
  unknown: 'status unknown (this kind of printer cannot tell)',
};

let advice: PrinterAdvice | null = null;
/** The label the advice is for, so an older answer never overwrites a newer one. */
let adviceKey = '';
let adviceLabel: { label: LabelRef; template: string } | null = null;
/** A person chose a printer for this label: a new reading keeps their choice. */
let chosenFor: string | null = null;
let seq = 0;

/** The fleet as read at sign-in, for when no label is in view. */
let known: Printer[] = [];

/** The fleet as last read, for the label in view if any (the job box and the job list offer it for a move). */
export const fleet = (): readonly Printer[] => advice?.printers ?? known;

/** Signed in with labels:print: the fleet, so the job list can offer a held job's move before any label is opened. */
export async function loadFleet(api: Studio): Promise<void> {
  try {
    known = await api.printers();
  } catch {
    known = [];
  }
}

/** A printer's title as the fleet was last read, else its name. */
export const printerTitle = (name: string): string => fleet().find((p) => p.name === name)?.title ?? name;

/** The printer chosen for the next print, or undefined to let the service choose. */
export function chosenPrinter(): string | undefined {
  const picker = $<HTMLSelectElement>('printer');
  return $('printer-choice').hidden || !picker.value ? undefined : picker.value;
}

/**
 * "62 mm continuous loaded · prints red": the roll it reports loaded; else the stocks it is set
 * up for (not "loaded": nothing said so); else that it takes any stock and reports no roll.
 */
function rollWords(p: Printer): string {
  const media = p.status?.media?.description;
  const roll = media ? `${media} loaded` : p.stocks.length > 0 ? `set up for ${p.stocks.map(stockTitle).join(', ')}` : 'takes any stock (reports no roll)';
  return `${roll}${p.red ? ' · prints red' : ''}`;
}

/** "ready · 62 mm continuous loaded · prints red", for a person. */
export function printerStatusWords(p: Printer): string {
  const state = p.status ? STATE_WORDS[p.status.state] : 'status not read yet';
  const message = p.status?.state === 'attention' && p.status.message ? `: ${p.status.message}` : '';
  return `${state}${message} · ${rollWords(p)}`;
}

export function initPrinters(): void {
  $('printer').addEventListener('change', () => {
    chosenFor = adviceKey;
    showChoice();
  });
  $('printers-refresh').addEventListener('click', () => void refreshStatus());
}

/** Signed out: no picker, no fleet. */
export function forgetPrinters(): void {
  hidePrinters();
  known = [];
}

/** A token that cannot print, or a label that cannot be drawn: no picker. */
export function hidePrinters(): void {
  seq++;
  advice = null;
  adviceKey = '';
  adviceLabel = null;
  chosenFor = null;
  $('printer-choice').hidden = true;
}

/** The label in view changed (record, kind or template): which printers can print it, and the rule's choice. */
export async function adviseFor(label: LabelRef | undefined, template: string): Promise<void> {
  const api = signedIn.api;
  if (!api || !can('labels:print') || !label) return hidePrinters();
  const key = `${label.kind}/${label.id}/${template}`;
  adviceLabel = { label, template };
  const mine = ++seq;
  try {
    const answer = await api.printersFor({ ...label, template });
    if (mine !== seq) return;
    if (key !== adviceKey) chosenFor = null;
    advice = answer;
    adviceKey = key;
    showPrinters();
  } catch (err) {
    if (mine !== seq) return;
    // Printing still works without the list: the service chooses.
    advice = null;
    adviceKey = key;
    $('printer-choice').hidden = false;
    $<HTMLSelectElement>('printer').replaceChildren(el('option', { value: '' }, 'The service chooses'));
    $('printer-status').textContent = failureText(err, 'The printers could not be read.');
    showChoice();
  }
}

function showPrinters(): void {
  const box = $('printer-choice');
  const printers = advice?.printers ?? [];
  box.hidden = printers.length === 0;
  if (box.hidden) return;
  const picker = $<HTMLSelectElement>('printer');
  const keep = chosenFor === adviceKey ? picker.value : '';
  picker.replaceChildren(
    ...printers.map((p) => {
      const notes = [p.name === advice?.suggested ? 'suggested' : '', p.canPrint === false ? 'cannot print this now' : ''].filter(Boolean);
      return el('option', { value: p.name }, `${p.title}${notes.length ? ` (${notes.join(', ')})` : ''}`);
    }),
  );
  const names = printers.map((p) => p.name);
  picker.value = keep && names.includes(keep) ? keep : (advice?.suggested ?? names[0] ?? '');
  $('printers-list').replaceChildren(...printers.map(printerRow));
  $('printers-count').textContent = `All printers (${printers.length})`;
  showChoice();
}

function printerRow(p: Printer): HTMLLIElement {
  const state = p.status?.state ?? 'unread';
  const li = el(
    'li',
    {},
    el('span', { className: 'title', dir: 'auto' }, p.title),
    el('span', { className: `badge printer-${state}` }, p.status ? STATE_WORDS[p.status.state].split(' (')[0]! : 'not read'),
    // The state is the badge's; the line says what it has loaded (and what needs a person, in its words).
    el('span', { className: 'meta' }, p.status?.state === 'attention' && p.status.message ? `${p.status.message} · ` : '', rollWords(p), p.name === advice?.suggested ? ' · suggested for this label' : ''),
  );
  li.dataset.printer = p.name;
  if (p.canPrint === false && p.holdReason) li.append(el('span', { className: 'meta cannot' }, `Cannot print this label now: ${p.holdReason}`));
  return li;
}

/** The chosen printer's status under the picker, and the warning when it cannot print this label now. */
function showChoice(): void {
  const chosen = advice?.printers.find((p) => p.name === $<HTMLSelectElement>('printer').value);
  if (chosen) $('printer-status').textContent = `${chosen.title}: ${printerStatusWords(chosen)}.`;
  const warning = $('printer-warning');
  const reason = chosen?.canPrint === false ? chosen.holdReason : null;
  warning.hidden = !reason;
  warning.textContent = reason
    ? `${chosen!.title} cannot print this label now: ${reason} Printed there, the job waits until that changes. ${advice?.printers.some((p) => p.canPrint) ? 'Choose a printer that can print it, or fix this one first.' : 'No printer can print it now.'}`
    : '';
}

/** Reads every printer's status now (refreshPrinterStatus), then the advice again. */
async function refreshStatus(): Promise<void> {
  const api = signedIn.api;
  const button = $<HTMLButtonElement>('printers-refresh');
  if (!api || isBusy(button) || !advice) return;
  busy(button, true);
  const status = $('printer-status');
  status.textContent = 'Asking the printers how they are…';
  try {
    await Promise.all(advice.printers.map((p) => api.refreshPrinterStatus(p.name).catch(() => undefined)));
    if (adviceLabel) await adviseFor(adviceLabel.label, adviceLabel.template);
  } catch (err) {
    status.textContent = failureText(err, 'The printers were not read.');
  } finally {
    busy(button, false);
  }
}
