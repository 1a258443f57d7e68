/**
 * Finding records: search by name or asset id and kind, browse the location tree
 * (with its breadcrumb), page through results. Each result opens its label, ticks
 * into the selection, and a location opens what is inside it.
 */
import type { LabelKind } from '../../src/records/kinds.js';
import { failureText, type InventoryRecord, type Studio } from './api.js';
import { $, el } from './dom.js';
import { preview } from './preview.js';
import { isTicked, refOf, showReplaceHints, tick } from './selection.js';
import { signedIn } from './session.js';

const ASSET_ID = /^[0-9]+(-[0-9]+)*$/;
const PAGE_SIZE = 25;

export type Filters = Parameters<Studio['records']>[0];
type Crumb = { id: string; name: string };

let filters: Filters = {};
let cursor: string | null = null;
let crumbs: Crumb[] = [];

/** The filters of the results shown (an asset search selects asset labels). */
export const searchFilters = (): Filters => filters;

/** The location being browsed (the breadcrumb's last), if any. */
export const browsedLocation = (): Crumb | undefined => crumbs.at(-1);

export function initFind(): void {
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const q = $<HTMLInputElement>('q').value.trim();
    const kind = $<HTMLSelectElement>('kind').value as LabelKind | '';
    crumbs = [];
    $('crumbs').hidden = true;
    $('select-here').hidden = true;
    const next: Filters = {};
    if (q) Object.assign(next, ASSET_ID.test(q) ? { assetId: q } : { q });
    if (kind) next.kind = kind;
    void search(next);
  });
  $('browse-top').addEventListener('click', () => browse([]));
  $('more').addEventListener('click', () => void search(filters, true));
}

/** Signed out: no results. */
export function clearResults(): void {
  $('results').replaceChildren();
  $('results-status').textContent = '';
}

async function search(next: Filters, append = false): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  filters = next;
  const status = $('results-status');
  status.textContent = 'Searching…';
  try {
    const page = await api.records({ ...filters, limit: PAGE_SIZE, cursor: append && cursor ? cursor : undefined });
    cursor = page.nextCursor ?? null;
    const items = page.records.map(resultItem);
    if (append) $('results').append(...items);
    else $('results').replaceChildren(...items);
    const shown = $('results').childElementCount;
    status.textContent = shown === 0 ? 'No records found.' : `${shown} record${shown === 1 ? '' : 's'}${cursor ? ' (more below)' : ''}.`;
    $('more').hidden = !cursor;
  } catch (err) {
    // Results from before would pass for the answer to this search.
    if (!append) {
      $('results').replaceChildren();
      cursor = null;
      $('more').hidden = true;
    }
    // Gone: the page's message says why; here, no results and no second copy of it.
    status.textContent = failureText(err, '');
  }
}

function resultItem(record: InventoryRecord): HTMLLIElement {
  const kind = record.assetId ? `${record.kind} · asset ${record.assetId}` : record.kind;
  const open = el('button', { type: 'button', className: 'record' }, el('span', { className: 'name', dir: 'auto' }, record.name), el('span', { className: 'meta' }, kind));
  open.addEventListener('click', () => void preview(record));
  const li = el('li', {}, open);
  const ref = refOf(record);
  const check = el('input', { type: 'checkbox', className: 'check', checked: isTicked(ref) });
  check.setAttribute('aria-label', `Select ${record.name}`);
  check.addEventListener('change', () => {
    // Ticking after choosing a location or a range replaces that (and says so, clearing every
    // box); this box keeps its tick.
    const on = check.checked;
    tick(ref, on);
    check.checked = on;
  });
  li.prepend(check);
  li.classList.add('has-check');
  if (record.path.length > 0) li.append(el('span', { className: 'path', dir: 'auto' }, record.path.join(' › ')));
  if (record.kind === 'location' && record.childCount > 0) {
    const inside = el('button', { type: 'button', className: 'inside' }, `Inside (${record.childCount})`);
    inside.setAttribute('aria-label', `Show what is inside ${record.name}`);
    // The record's own path, not the crumbs shown: a search result's ancestors are not on screen.
    inside.addEventListener('click', () => browse([...record.pathIds.map((id, i) => ({ id, name: record.path[i] ?? id })), { id: record.id, name: record.name }]));
    li.append(inside);
  }
  return li;
}

function browse(path: Crumb[]): void {
  crumbs = path;
  const nav = $('crumbs');
  const top = el('button', { type: 'button' }, 'Top');
  top.addEventListener('click', () => browse([]));
  const parts: Node[] = [top];
  path.forEach((c, i) => {
    const b = el('button', { type: 'button', dir: 'auto' }, c.name);
    if (i === path.length - 1) b.setAttribute('aria-current', 'location');
    b.addEventListener('click', () => browse(path.slice(0, i + 1)));
    parts.push(el('span', { className: 'sep' }, ' › '), b);
  });
  nav.replaceChildren(...parts);
  nav.hidden = false;
  const last = path.at(-1);
  $('select-here').hidden = !last;
  if (last) {
    $('select-location').textContent = `Select every item in ${last.name}`;
    $('select-tree').textContent = `Select ${last.name} and every location inside it`;
  }
  showReplaceHints();
  void search(last ? { parent: last.id } : { topLevel: true });
}
