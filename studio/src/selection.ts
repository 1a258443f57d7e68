/**
 * What is selected, to print as a batch or lay out on a sheet: one kind of selection at a
 * time (the API takes one). Ticked records; every item in a location, at any depth; a
 * location and every location inside it; or an asset-id range. Choosing another replaces
 * it, and the page says so before (the hints by the buttons) and after (in the selection
 * panel). The panel counts the labels and says what "Print all" would print.
 */
import type { LabelKind } from '../../src/records/kinds.js';
import type { InventoryRecord, Selection, SheetProduct, Studio } from './api.js';
import { showActionBar } from './action-bar.js';
import { batchRunning } from './batch.js';
import { $ } from './dom.js';
import { browsedLocation, searchFilters } from './find.js';
import { can, signedIn } from './session.js';
import { chosenTemplate, templateTitle } from './template-choice.js';

export type SelectedRef = { kind: LabelKind; id: string };
type Place = { id: string; name: string };
type Chosen = { mode: 'records' } | { mode: 'items'; location: Place } | { mode: 'tree'; location: Place } | { mode: 'range'; from: string; to: string };

let chosen: Chosen | null = null;
/** The ticked records (mode 'records'). */
const picked = new Map<string, SelectedRef>();
/** How many labels the selection names (one copy each): null while a whole location or a range is being counted. */
let selectedCount: number | null = 0;
let countSeq = 0;
/** Above this many labels, "Print all" asks first, naming the count and the template. */
export const CONFIRM_ABOVE = 10;
/** Counting stops here: the number is said as "more than". */
const COUNT_CAP = 5000;

const keyOf = (ref: SelectedRef) => `${ref.kind}:${ref.id}`;

/** Asset searches select asset labels; otherwise each record's own label. */
export function refOf(record: InventoryRecord): SelectedRef {
  return searchFilters()?.kind === 'asset' && record.assetId ? { kind: 'asset', id: record.assetId } : { kind: record.kind, id: record.id };
}

export const isTicked = (ref: SelectedRef): boolean => picked.has(keyOf(ref));

export function initSelection(): void {
  $('copies').addEventListener('input', () => showBatchSummary());
  for (const [id, mode] of [['select-location', 'items'], ['select-tree', 'tree']] as const) {
    $(id).addEventListener('click', () => {
      const here = browsedLocation();
      if (!here) return;
      choose({ mode, location: here });
      showBatch();
      $('batch-title').scrollIntoView({ block: 'nearest' });
    });
  }
  $('range-form').addEventListener('submit', (e) => {
    e.preventDefault();
    choose({ mode: 'range', from: $<HTMLInputElement>('range-from').value.trim(), to: $<HTMLInputElement>('range-to').value.trim() });
    showBatch();
    $('batch-title').scrollIntoView({ block: 'nearest' });
  });
  $('clear-selection').addEventListener('click', () => {
    choose({ mode: 'records' });
    $('batch-replaced').hidden = true;
    showBatch();
  });
}

/** Ticks or unticks a record; ticking after choosing a location or a range replaces that. */
export function tick(ref: SelectedRef, on: boolean): void {
  if (chosen?.mode !== 'records') choose({ mode: 'records' });
  else if (picked.size === 0) newSelection();
  if (on) picked.set(keyOf(ref), ref);
  else picked.delete(keyOf(ref));
  showBatch();
}

/** Signed out: nothing selected, and a count on its way is dropped. */
export function clearSelection(): void {
  picked.clear();
  chosen = null;
  countSeq++;
  $('batch').hidden = true;
}

/** The selection as the API takes it, or null when nothing is selected. */
export function selection(): Selection | null {
  switch (chosen?.mode) {
    case 'items':
      return { location: chosen.location.id, descendants: true, kind: 'item' };
    case 'tree':
      return { location: chosen.location.id, descendants: true, kind: 'location', includeSelf: true };
    case 'range':
      return { assetIdFrom: chosen.from, assetIdTo: chosen.to };
    case 'records':
      return picked.size > 0 ? { records: [...picked.values()] } : null;
    default:
      return null;
  }
}

/** The batch form's choices: the template (the preview's), copies, start position and sheet product. */
export function batchOptions(): { template: string; copies: number; startAt: number; sheet: SheetProduct } {
  return {
    template: chosenTemplate(),
    copies: Number($<HTMLInputElement>('copies').value) || 1,
    startAt: Number($<HTMLInputElement>('start-at').value) || 1,
    sheet: $<HTMLSelectElement>('sheet').value as SheetProduct,
  };
}

/** The selection in a few words ("every item in Crate (20 labels)"), to say what a new one replaces. */
function selectionName(): string {
  const n = selectedCount === null ? '' : ` (${countText(selectedCount)})`;
  switch (chosen?.mode) {
    case 'items':
      return `every item in ${chosen.location.name}${n}`;
    case 'tree':
      return `${chosen.location.name} and every location inside it${n}`;
    case 'range':
      return `asset labels ${chosen.from} to ${chosen.to}${n}`;
    default:
      return `${picked.size} ticked record${picked.size === 1 ? '' : 's'}`;
  }
}

/** Makes `next` the selection (ticks cleared, one copy), saying what it replaced, if anything. */
function choose(next: Chosen): void {
  const replaced = selection() && JSON.stringify(next) !== JSON.stringify(chosen) ? selectionName() : null;
  newSelection();
  chosen = next;
  picked.clear();
  $('results').querySelectorAll<HTMLInputElement>('.check').forEach((c) => (c.checked = false));
  const note = $('batch-replaced');
  note.textContent = replaced ? `This replaced the earlier selection: ${replaced}.` : '';
  note.hidden = !replaced;
}

/** Before choosing: next to the buttons that would replace the selection, what they would replace. */
export function showReplaceHints(): void {
  const here = browsedLocation();
  const now = selection() ? selectionName() : null;
  const hint = (id: string, show: boolean) => {
    $(id).hidden = !show;
    $(id).textContent = show ? `Selecting here replaces what is selected now: ${now}.` : '';
  };
  // Not when it is this location's own selection that the buttons would choose again.
  hint('select-hint', now !== null && !((chosen?.mode === 'items' || chosen?.mode === 'tree') && chosen.location.id === here?.id));
  hint('range-hint', now !== null && chosen?.mode !== 'range');
}

const labels = (n: number) => `${n} label${n === 1 ? '' : 's'}`;
const countText = (n: number | null) => (n === null ? 'counting…' : n > COUNT_CAP ? `more than ${labels(COUNT_CAP)}` : labels(n));

/**
 * A whole location or an asset range is counted by listing it (the list has no total):
 * people see how many labels they are about to print before they print them.
 */
async function countSelection(): Promise<void> {
  const seq = ++countSeq;
  const filters: Parameters<Studio['records']>[0] | null =
    chosen?.mode === 'items'
      ? { parent: chosen.location.id, descendants: true, kind: 'item' }
      : chosen?.mode === 'tree'
        ? { parent: chosen.location.id, descendants: true, kind: 'location' }
        : chosen?.mode === 'range'
          ? { assetIdFrom: chosen.from, assetIdTo: chosen.to }
          : null;
  if (!filters) {
    selectedCount = picked.size;
    return showBatchSummary();
  }
  selectedCount = null;
  showBatchSummary();
  // The location's own label, besides those inside it.
  let n = chosen?.mode === 'tree' ? 1 : 0;
  let next: string | undefined;
  try {
    do {
      const page = await signedIn.api!.records({ ...filters, limit: 200, cursor: next });
      if (seq !== countSeq) return;
      n += page.records.length;
      next = page.nextCursor ?? undefined;
    } while (next && n <= COUNT_CAP);
  } catch {
    if (seq === countSeq) $('batch-total').textContent = 'The number of labels could not be counted.';
    return;
  }
  selectedCount = n;
  showBatchSummary();
}

/** What "Print all" would print: the count with the copies, and the template. */
export function batchTotal(): { total: number | null; text: string } {
  const copies = batchOptions().copies;
  const total = selectedCount === null ? null : selectedCount * copies;
  const each = copies > 1 && selectedCount !== null ? ` (${countText(selectedCount)} × ${copies} copies)` : '';
  return { total, text: `${countText(total)}${each} on ${templateTitle()}` };
}

export function showBatchSummary(): void {
  const count = countText(selectedCount);
  const what =
    chosen?.mode === 'items'
      ? `Every item in ${chosen.location.name}, at any depth: ${count}.`
      : chosen?.mode === 'tree'
        ? `${chosen.location.name} and every location inside it, at any depth (location labels): ${count}.`
        : chosen?.mode === 'range'
          ? `Asset labels ${chosen.from} to ${chosen.to}: ${count}.`
          : `${labels(picked.size)} selected.`;
  $('batch-what').textContent = what;
  $('batch-total').textContent = `Print all prints ${batchTotal().text}.`;
  showReplaceHints();
}

/** A new selection starts at one copy: copies chosen for the last one must not multiply this one unseen. */
function newSelection(): void {
  $<HTMLInputElement>('copies').value = '1';
}

/** The selection panel as the selection is now (hidden without one). */
export function showBatch(): void {
  // What a finished batch said was about the selection before this one.
  if (!batchRunning()) {
    $('batch-status').hidden = true;
    $('batch-warnings').hidden = true;
  }
  const box = $('batch');
  box.hidden = !selection();
  void countSelection();
  const batchButton = $<HTMLButtonElement>('print-batch');
  batchButton.disabled = !can('labels:print');
  batchButton.title = batchButton.disabled ? 'This token cannot print (it lacks labels:print).' : '';
  showActionBar();
}
