/**
 * On a phone the main actions stay at the bottom of the screen, so a person at the
 * shelf need not scroll to them: print this label, and with a selection, print it
 * all or get its sheet. The bar's buttons press the panels' own (one code path);
 * wide screens hide it (CSS), as the panels stay in view there.
 */
import { $ } from './dom.js';
import { selection } from './selection.js';
import { can } from './session.js';

export function initActionBar(): void {
  $('bar-print').addEventListener('click', () => $('print').click());
  $('bar-print-batch').addEventListener('click', () => $('print-batch').click());
  $('bar-sheet').addEventListener('click', () => $<HTMLFormElement>('batch-form').requestSubmit());
}

export function showActionBar(): void {
  const hasLabel = !$('preview').hidden;
  const hasSelection = selection() !== null && !$('batch').hidden;
  // Only what this token may do: a bar of disabled buttons would take the room for nothing.
  const printing = can('labels:print');
  const print = $<HTMLButtonElement>('bar-print');
  print.hidden = !hasLabel || !printing;
  $('bar-print-batch').hidden = !hasSelection || !printing;
  $('bar-sheet').hidden = !hasSelection;
  const bar = $('action-bar');
  bar.hidden = [...bar.querySelectorAll('button')].every((b) => b.hidden);
  document.body.classList.toggle('has-action-bar', !bar.hidden);
}
