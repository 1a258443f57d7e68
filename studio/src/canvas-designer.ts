/**
 * The element designer: the label at true size (scaled down to fit a phone, the scale
 * said), the server's preview PNG under a box per element, boxes dragged and resized
 * with the pointer or the keyboard and snapped to the printable area and to each other,
 * every property in a form, undo and redo, a preview drawn by the service as you type
 * (the latest edit wins: an older request is aborted), sample records, save with the
 * service's scan check, export and import. Geometry: canvas-math.ts; model: elements.ts;
 * the wire format: element-wire.ts.
 */
import { failureText, messageOf, statusOf, unreachable, type SampleRecord, type Stock } from './api.js';
import { fitScale, keyAction, moveBox, pxToMm, PX_PER_MM, resizeBox, scaleInWords, snapMove, snapResize, type Area, type Box, type Guide } from './canvas-math.js';
import { fieldPlaceholder, type OfferedField } from './field-choices.js';
import { $, el } from './dom.js';
import { boxLabel, movedWords, newElement, TEXT_PT_DEFAULT, TYPE_WORDS, type DesignElement, type ElementDesign, type ElementType } from './elements.js';
import { fromWire, parseImport, problemInWords, scanCheckWords, toWire } from './element-wire.js';
import type { GridArea } from '../../src/labels/grid.js';
import { mm, pngSize } from './png.js';
import { recordRef, selectedRecord } from './preview.js';
import { signedIn } from './session.js';
import { allStocks, DEFAULT_STOCK, designArea, findStock, gridAreaOf } from './stocks.js';
import { loadTemplates } from './template-choice.js';
import { History } from './undo.js';
import { headerInWords } from './warnings.js';

/** How long after the last edit the preview is asked for. */
export const PREVIEW_DEBOUNCE_MS = 150;

let design: ElementDesign = { stock: DEFAULT_STOCK, elements: [] };
const history = new History<ElementDesign>(design);
let selectedKey: string | null = null;
let scale = 1;
let previewTimer: number | undefined;
let inFlight: AbortController | null = null;
let previewUrl: string | null = null;
let fields: readonly OfferedField[] = [];
/** The saved design the canvas was loaded from, and its ETag for the next save. */
let loaded: { name: string; etag: string } | null = null;
/** Whether the design changed since it was loaded or saved. */
let dirty = false;

const selected = (): DesignElement | undefined => design.elements.find((e) => e.key === selectedKey);

/** The length in mm of the last preview on continuous tape (its length follows the design). */
let drawnLengthMm: number | null = null;

/**
 * The printable area in mm of the design's stock, as boxes measure it (continuous tape: as long
 * as the last preview, else 30 mm): on a stock designed turned (designTurned), x runs along its length.
 */
function areaOf(stock: Stock | undefined): Area {
  return stock ? designArea(stock, drawnLengthMm ?? 30) : { width: 58.9, height: 22.9 };
}
const area = (): Area => areaOf(findStock(design.stock));

/** The area a design's rows and columns divide on this stock (stocks.ts gridAreaOf). */
const gridArea = (stockName: string): GridArea => gridAreaOf(findStock(stockName), stockName) ?? { ...areaOf(undefined), name: stockName };
const LINES_OPENED = 'It was a design of text lines: its lines, codes and logo are now elements where rows and columns put them. It prints as before until you save it here; saved, it is a design of elements.';
const GRID_OPENED = 'It was laid out in rows and columns: its elements are now boxes where the grid put them, and saving keeps them there.';
/** What became of a design opened from another form (rows and columns, text lines), in words; '' for neither. */
const openedWords = (opened: ReturnType<typeof fromWire>): string =>
  opened.fromGrid ? GRID_OPENED : opened.fromLines ? [LINES_OPENED, ...opened.fromLines.notes].join(' ') : '';

export function initCanvasDesigner(): void {
  for (const type of ['text', 'code', 'line', 'frame'] as ElementType[]) $(`cd-add-${type}`).addEventListener('click', () => addElement(type));
  $<HTMLInputElement>('cd-add-image').addEventListener('change', () => void addImage());
  $('cd-undo').addEventListener('click', undo);
  $('cd-redo').addEventListener('click', redo);
  $('cd-remove').addEventListener('click', removeSelected);
  $('canvas-designer').addEventListener('keydown', (e) => {
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === 'z') {
      e.preventDefault();
      if (e.shiftKey) redo();
      else undo();
    } else if ((e.ctrlKey || e.metaKey) && k === 'y') {
      e.preventDefault();
      redo();
    }
  });
  $<HTMLSelectElement>('cd-preview-with').addEventListener('change', () => {
    showSample();
    schedulePreview();
  });
  $<HTMLSelectElement>('cd-stock').addEventListener('change', () => {
    commit({ ...design, stock: $<HTMLSelectElement>('cd-stock').value }, null);
    render();
  });
  $('cd-props').addEventListener('input', propsChanged);
  $('cd-props').addEventListener('change', propsChanged);
  $('cd-field-insert').addEventListener('click', insertField);
  $('cd-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void save();
  });
  $('cd-export').addEventListener('click', () => void exportDesign());
  $('cd-delete').addEventListener('click', () => void deleteDesign());
  $<HTMLInputElement>('cd-import').addEventListener('change', () => void importDesign());
  $<HTMLSelectElement>('cd-load').addEventListener('change', () => void load($<HTMLSelectElement>('cd-load').value));
  $('canvas-designer').addEventListener('toggle', () => {
    if (!$<HTMLDetailsElement>('canvas-designer').open) return;
    fillChoices();
    render();
    schedulePreview();
  });
  window.addEventListener('resize', () => {
    if ($<HTMLDetailsElement>('canvas-designer').open) render();
  });
  renderProps();
}

/** The deployment's custom fields (listFields): Insert the field puts one into the selected text. */
export function offerCanvasFields(offered: readonly OfferedField[]): void {
  fields = offered;
  $<HTMLSelectElement>('cd-field').replaceChildren(...offered.map((f) => el('option', { value: f.name }, `${f.title} (${fieldPlaceholder(f)})`)));
  $('cd-fields').hidden = offered.length === 0;
}

/**
 * Samples that test a design, drawn by the service without being stored: the longest name the
 * records' rules allow, a right-to-left name, the longest asset id (12 digits).
 */
const SAMPLES: Record<string, SampleRecord> = {
  longest: { kind: 'item', name: `Heavy-duty ${'cordless impact driver with two batteries, '.repeat(5)}`.slice(0, 200).trim(), path: ['Workshop', 'Cabinet 2', 'Drawer 14'] },
  rtl: { kind: 'location', name: 'מדף עליון 3', path: ['מחסן', 'מעבר 2'] },
  asset12: { kind: 'asset', name: 'Cordless drill', assetId: '999-999-999-999', path: ['Garage', 'Shelf 3'] },
};

/** What the preview draws: the sample chosen in "Preview with", else the record shown. */
function previewOn(): { record: NonNullable<ReturnType<typeof recordRef>> } | { sample: SampleRecord } | undefined {
  const sample = SAMPLES[$<HTMLSelectElement>('cd-preview-with').value];
  if (sample) return { sample };
  const record = recordRef();
  return record ? { record } : undefined;
}

/** Which record the label is drawn for, in words. */
function showSample(): void {
  const sample = SAMPLES[$<HTMLSelectElement>('cd-preview-with').value];
  const shown = selectedRecord();
  $('cd-sample').textContent = sample ? `The label is drawn for a sample that is not stored: ${sample.name}${sample.assetId ? ` (asset ${sample.assetId})` : ''}.` : shown ? `The label is drawn for ${shown.name}.` : '';
}

/** The stock list (the service's stocks), the saved designs to start from, and the record shown as a sample. */
function fillChoices(): void {
  const stocks = allStocks().length > 0 ? allStocks() : [];
  const stock = $<HTMLSelectElement>('cd-stock');
  stock.replaceChildren(...stocks.map((s) => el('option', { value: s.name }, s.title)));
  stock.value = design.stock;
  showSample();
  void fillLoadList();
}

async function fillLoadList(): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const select = $<HTMLSelectElement>('cd-load');
  const was = loaded?.name ?? '';
  try {
    const saved = await api.savedTemplates();
    select.replaceChildren(el('option', { value: '' }, 'A new design'), ...saved.map((t) => el('option', { value: t.name }, t.name)));
    select.value = was;
  } catch {
    /* the list stays as it was; loading says why if it fails */
  }
}

// ---- edits and history --------------------------------------------------------

/** Takes `next` as the design, as one undo step (or part of the last one, with the same `mergeKey`), and redraws the preview. */
function commit(next: ElementDesign, mergeKey: string | null): void {
  design = next;
  dirty = true;
  history.push(design, mergeKey);
  $('cd-saved').textContent = '';
  updateUndoButtons();
  schedulePreview();
}

function undo(): void {
  if (!history.canUndo) return;
  design = history.undo();
  afterHistory('Undone.');
}

function redo(): void {
  if (!history.canRedo) return;
  design = history.redo();
  afterHistory('Redone.');
}

function afterHistory(words: string): void {
  dirty = true;
  if (!design.elements.some((e) => e.key === selectedKey)) selectedKey = design.elements[0]?.key ?? null;
  $<HTMLSelectElement>('cd-stock').value = design.stock;
  render();
  renderProps();
  announce(words);
  schedulePreview();
}

function updateUndoButtons(): void {
  $<HTMLButtonElement>('cd-undo').disabled = !history.canUndo;
  $<HTMLButtonElement>('cd-redo').disabled = !history.canRedo;
}

function addElement(type: ElementType): void {
  const e = newElement(design, type, area());
  commit({ ...design, elements: [...design.elements, e] }, null);
  selectedKey = e.key;
  render();
  renderProps();
  announce(`${e.name} added at ${e.box.x} mm, ${e.box.y} mm.`);
  boxOf(e.key)?.focus();
}

async function addImage(): Promise<void> {
  const input = $<HTMLInputElement>('cd-add-image');
  const file = input.files?.[0];
  input.value = '';
  if (!file) return;
  if (file.size > 384 * 1024) return announce(`${file.name} is larger than 384 KB; not added.`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  // The design has one picture (its logo), drawn in each image element's box.
  const e = newElement(design, 'image', area());
  const logo = { image: btoa(binary), heightMm: Math.min(150, Math.max(2, e.box.height)) };
  commit({ ...design, logo, elements: [...design.elements, e] }, null);
  selectedKey = e.key;
  render();
  renderProps();
  announce(`${e.name} added.`);
}

function removeSelected(): void {
  const e = selected();
  if (!e) return;
  const at = design.elements.indexOf(e);
  commit({ ...design, elements: design.elements.filter((x) => x !== e) }, null);
  selectedKey = design.elements[Math.min(at, design.elements.length - 1)]?.key ?? null;
  render();
  renderProps();
  announce(`${e.name} removed.`);
  if (selectedKey) boxOf(selectedKey)?.focus();
  else $('cd-add-text').focus();
}

/** The element with `key` replaced by `change(element)`. */
function withElement(key: string, change: (e: DesignElement) => DesignElement): ElementDesign {
  return { ...design, elements: design.elements.map((e) => (e.key === key ? change(e) : e)) };
}

// ---- the canvas ---------------------------------------------------------------

const boxOf = (key: string): HTMLElement | null => document.querySelector<HTMLElement>(`#cd-stage [data-key="${key}"]`);

/** The stage at true size (or the scale that fits), the boxes over the preview, and the scale in words. */
function render(): void {
  const a = area();
  const stage = $('cd-stage');
  // The room the page gives the canvas, not the room the stage last took: measured with the stage out of the way.
  stage.style.width = '0';
  const room = $('cd-canvas').clientWidth - 24;
  scale = fitScale(a.width, room > 0 ? room : a.width * PX_PER_MM);
  const px = (mm: number) => `${mm * PX_PER_MM * scale}px`;
  stage.style.width = px(a.width);
  stage.style.height = px(a.height);
  const stock = findStock(design.stock);
  // On a stock designed turned the PNG is the design turned a quarter clockwise: shown turned back under the boxes.
  const img = $<HTMLImageElement>('cd-img');
  const turned = stock?.designTurned === true;
  img.classList.toggle('cd-turned', turned);
  img.style.width = turned ? px(a.height) : '';
  img.style.height = turned ? px(a.width) : '';
  img.style.transform = turned ? `translateY(${px(a.height)}) rotate(-90deg)` : '';
  $('cd-scale').textContent = `${stock?.title ?? design.stock}: printable area ${a.width} × ${a.height} mm, ${scaleInWords(scale)}.`;
  const boxes = design.elements.map((e) => {
    const b = el('button', { type: 'button', className: `cd-box cd-${e.type}` });
    b.dataset.key = e.key;
    b.setAttribute('aria-label', boxLabel(e));
    b.setAttribute('aria-pressed', String(e.key === selectedKey));
    b.setAttribute('aria-describedby', 'cd-keys');
    placeBox(b, e.box);
    const tag = el('span', { className: 'cd-tag' }, e.name);
    tag.setAttribute('aria-hidden', 'true');
    const handle = el('span', { className: 'cd-handle' });
    handle.setAttribute('aria-hidden', 'true');
    b.append(tag, handle);
    b.addEventListener('click', () => select(e.key));
    b.addEventListener('keydown', (ev) => boxKey(ev, e.key));
    b.addEventListener('pointerdown', (ev) => startDrag(ev, e.key, (ev.target as HTMLElement).classList.contains('cd-handle') ? 'resize' : 'move'));
    return b;
  });
  // The keyboard stays on the element it was on (an undo redraws every box).
  const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('#cd-stage .cd-box')?.dataset.key;
  stage.querySelectorAll('.cd-box, .cd-guide').forEach((n) => n.remove());
  stage.append(...boxes);
  if (focused) (boxOf(focused) ?? boxOf(selectedKey ?? ''))?.focus();
  $('cd-empty').hidden = design.elements.length > 0;
  updateUndoButtons();
}

function placeBox(node: HTMLElement, box: Box): void {
  const k = PX_PER_MM * scale;
  node.style.left = `${box.x * k}px`;
  node.style.top = `${box.y * k}px`;
  node.style.width = `${box.width * k}px`;
  node.style.height = `${box.height * k}px`;
}

function showGuides(guides: readonly Guide[]): void {
  const stage = $('cd-stage');
  stage.querySelectorAll('.cd-guide').forEach((n) => n.remove());
  const k = PX_PER_MM * scale;
  for (const g of guides) {
    const line = el('span', { className: `cd-guide cd-guide-${g.axis}` });
    line.setAttribute('aria-hidden', 'true');
    if (g.axis === 'x') line.style.left = `${g.at * k}px`;
    else line.style.top = `${g.at * k}px`;
    stage.append(line);
  }
}

function select(key: string): void {
  if (selectedKey === key) return;
  selectedKey = key;
  document.querySelectorAll<HTMLElement>('#cd-stage .cd-box').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.key === key)));
  renderProps();
}

/** Arrows move the element (0.5 mm, Shift 5 mm); Alt with them resizes; Delete removes it. */
function boxKey(ev: KeyboardEvent, key: string): void {
  select(key);
  if (ev.key === 'Delete' || ev.key === 'Backspace') {
    ev.preventDefault();
    return removeSelected();
  }
  const act = keyAction(ev.key, ev.shiftKey, ev.altKey);
  if (!act) return;
  ev.preventDefault();
  const e = selected()!;
  const box = act.kind === 'move' ? moveBox(e.box, act.dx, act.dy, area()) : resizeBox(e.box, act.dx, act.dy, area());
  commit(withElement(key, (x) => ({ ...x, box })), `${act.kind}:${key}`);
  const moved = selected()!;
  const node = boxOf(key)!;
  placeBox(node, box);
  node.setAttribute('aria-label', boxLabel(moved));
  fillBoxFields(moved);
  announce(movedWords(moved, act.kind));
}

function startDrag(ev: PointerEvent, key: string, kind: 'move' | 'resize'): void {
  if (ev.button !== 0) return;
  const node = ev.currentTarget as HTMLElement;
  select(key);
  const start = selected()!.box;
  const others = design.elements.filter((e) => e.key !== key).map((e) => e.box);
  const [x0, y0] = [ev.clientX, ev.clientY];
  let box = start;
  node.setPointerCapture(ev.pointerId);
  ev.preventDefault();
  node.focus();
  const move = (m: PointerEvent) => {
    const dx = pxToMm(m.clientX - x0, scale);
    const dy = pxToMm(m.clientY - y0, scale);
    const raw = kind === 'move' ? moveBox(start, dx, dy, area()) : resizeBox(start, dx, dy, area());
    // Alt held: no snapping, for a place between the guides.
    const snapped = m.altKey ? { box: raw, guides: [] } : kind === 'move' ? snapMove(raw, area(), others) : snapResize(raw, area(), others);
    box = snapped.box;
    placeBox(node, box);
    showGuides(snapped.guides);
  };
  const end = () => {
    node.removeEventListener('pointermove', move);
    node.removeEventListener('pointerup', end);
    node.removeEventListener('pointercancel', end);
    showGuides([]);
    if (JSON.stringify(box) === JSON.stringify(start)) return;
    commit(withElement(key, (x) => ({ ...x, box })), null);
    const moved = selected()!;
    node.setAttribute('aria-label', boxLabel(moved));
    fillBoxFields(moved);
    announce(movedWords(moved, kind));
  };
  node.addEventListener('pointermove', move);
  node.addEventListener('pointerup', end);
  node.addEventListener('pointercancel', end);
}

/** Said by screen readers (a polite live region) and shown under the canvas. */
function announce(words: string): void {
  $('cd-live').textContent = words;
}

// ---- the property form --------------------------------------------------------

/** The form for the selected element: only the properties its type has. */
function renderProps(): void {
  const e = selected();
  $('cd-props').hidden = !e;
  $('cd-none').hidden = !!e;
  if (!e) return;
  $('cd-props-title').textContent = legendOf(e);
  const show = (id: string, on: boolean) => ($(id).hidden = !on);
  show('cd-text-part', e.type === 'text');
  show('cd-code-part', e.type === 'code');
  show('cd-stroke-part', e.type === 'line' || e.type === 'frame');
  show('cd-rotation-part', e.type !== 'line' && e.type !== 'frame');
  show('cd-colour-part', (findStock(design.stock)?.colours ?? ['black']).includes('red'));
  const set = (id: string, v: string | number | undefined) => ($<HTMLInputElement | HTMLSelectElement>(id).value = String(v ?? ''));
  set('cd-name', e.name);
  set('cd-text', e.text);
  set('cd-pt-min', (e.pt ?? TEXT_PT_DEFAULT).min);
  set('cd-pt-max', (e.pt ?? TEXT_PT_DEFAULT).max);
  set('cd-weight', e.weight ?? 'regular');
  set('cd-lines', e.lines ?? 1);
  set('cd-align', e.align ?? 'start');
  set('cd-rotation', e.rotation ?? 0);
  set('cd-colour', e.colour ?? 'black');
  set('cd-symbology', e.symbology ?? 'qr');
  set('cd-content', e.data);
  set('cd-stroke', e.thicknessMm ?? 0.3);
  fillBoxFields(e);
}

/** The form's legend: the element's name, and its kind when the name does not say it ("Title (text)", not "Code (code)"). */
function legendOf(e: DesignElement): string {
  const kind = TYPE_WORDS[e.type];
  return e.name.startsWith(kind) ? e.name : `${e.name} (${kind.toLowerCase()})`;
}

function fillBoxFields(e: DesignElement): void {
  for (const k of ['x', 'y', 'width', 'height'] as const) $<HTMLInputElement>(`cd-${k}`).value = String(e.box[k]);
}

/** A change in the form: the element changed, one undo step per field while typing in it. */
function propsChanged(ev: Event): void {
  const e = selected();
  const id = (ev.target as HTMLElement).id;
  if (!e || !id.startsWith('cd-')) return;
  const v = (i: string) => $<HTMLInputElement | HTMLSelectElement>(i).value;
  const n = (i: string, fallback: number) => {
    const x = Number(v(i));
    return v(i).trim() !== '' && Number.isFinite(x) ? x : fallback;
  };
  const a = area();
  const box = { x: n('cd-x', e.box.x), y: n('cd-y', e.box.y), width: n('cd-width', e.box.width), height: n('cd-height', e.box.height) };
  // Typed numbers stay inside the area too.
  const kept = resizeBox(moveBox({ ...box, width: Math.min(box.width, a.width), height: Math.min(box.height, a.height) }, 0, 0, a), 0, 0, a);
  const next: DesignElement = {
    ...e,
    name: v('cd-name').trim() || e.name,
    box: kept,
    ...(e.type === 'text' ? { text: v('cd-text'), pt: { min: n('cd-pt-min', (e.pt ?? TEXT_PT_DEFAULT).min), max: n('cd-pt-max', (e.pt ?? TEXT_PT_DEFAULT).max) }, weight: v('cd-weight') as DesignElement['weight'], lines: Math.round(n('cd-lines', e.lines ?? 1)), align: v('cd-align') as DesignElement['align'] } : {}),
    ...(e.type === 'code' ? { symbology: v('cd-symbology') as DesignElement['symbology'], data: v('cd-content') } : {}),
    ...(e.type === 'line' || e.type === 'frame' ? { thicknessMm: n('cd-stroke', e.thicknessMm ?? 0.3) } : {}),
    ...(e.type === 'line' || e.type === 'frame' ? {} : { rotation: Number(v('cd-rotation')) as DesignElement['rotation'] }),
    colour: v('cd-colour') as DesignElement['colour'],
  };
  if (JSON.stringify(next) === JSON.stringify(e)) return;
  commit(withElement(e.key, () => next), `${id}:${e.key}`);
  const node = boxOf(e.key);
  if (node) {
    placeBox(node, next.box);
    node.setAttribute('aria-label', boxLabel(next));
    node.querySelector('.cd-tag')!.textContent = next.name;
  }
  if (id === 'cd-name') $('cd-props-title').textContent = legendOf(next);
}

/** Insert the field: the field's placeholder at the cursor in the selected text. */
function insertField(): void {
  const field = fields.find((f) => f.name === $<HTMLSelectElement>('cd-field').value);
  const input = $<HTMLInputElement>('cd-text');
  if (!field || selected()?.type !== 'text') return;
  const at = input.selectionStart ?? input.value.length;
  input.value = `${input.value.slice(0, at)}${fieldPlaceholder(field)}${input.value.slice(input.selectionEnd ?? at)}`;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.focus();
}

// ---- the preview --------------------------------------------------------------

/** The preview a moment after the last edit; an edit while one is being drawn aborts it (the latest wins). */
function schedulePreview(): void {
  window.clearTimeout(previewTimer);
  previewTimer = window.setTimeout(() => void drawPreview(), PREVIEW_DEBOUNCE_MS);
}

async function drawPreview(): Promise<void> {
  const api = signedIn.api;
  if (!api || !$<HTMLDetailsElement>('canvas-designer').open) return;
  inFlight?.abort();
  const mine = new AbortController();
  inFlight = mine;
  const status = $('cd-preview-status');
  const img = $<HTMLImageElement>('cd-img');
  const on = previewOn();
  if (!on) return;
  if (design.elements.length === 0) {
    img.hidden = true;
    status.textContent = 'Add an element to see the label.';
    return;
  }
  img.setAttribute('aria-busy', 'true');
  status.textContent = 'Drawing the label…';
  try {
    const label = await api.previewElements(toWire(design), on, mine.signal);
    if (inFlight !== mine) return;
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = URL.createObjectURL(new Blob([label.png as BlobPart], { type: 'image/png' }));
    img.src = previewUrl;
    img.hidden = false;
    const size = pngSize(label.png);
    if (size?.dpi && !findStock(design.stock)?.printable.lengthMm) {
      drawnLengthMm = mm(size.heightPx, size.dpi);
      render();
    }
    img.dataset.drawn = String(Number(img.dataset.drawn ?? 0) + 1);
    $('cd-problem').hidden = true;
    status.textContent = label.warnings ? `Drawn, not quite as asked: ${headerInWords(label.warnings).join(' ')}` : 'The label as the service draws it (not saved yet).';
  } catch (err) {
    if (mine.signal.aborted || inFlight !== mine) return;
    status.textContent = unreachable(err) ? 'The label is not drawn: the service cannot be reached.' : 'The design cannot be drawn.';
    const problem = $('cd-problem');
    problem.hidden = unreachable(err);
    problem.textContent = unreachable(err) ? '' : problemInWords(messageOf(err), design.elements.map((e) => e.name));
  } finally {
    if (inFlight === mine) {
      img.removeAttribute('aria-busy');
      inFlight = null;
    }
  }
}

// ---- save, load, export, import -----------------------------------------------

/** The saved design the canvas holds (its ETag for the next save or delete): Delete is offered for it. */
function setLoaded(next: { name: string; etag: string } | null): void {
  loaded = next;
  $('cd-delete').hidden = !loaded;
}

/** Why saving, loading or deleting did not happen, with an action that helps (load their version). */
function showError(message: string, action?: HTMLButtonElement): void {
  const error = $('cd-error');
  error.replaceChildren(message, ...(action ? [' ', action] : []));
  error.hidden = false;
  error.scrollIntoView({ block: 'nearest' });
}

async function save(): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const name = $<HTMLInputElement>('cd-design-name').value.trim();
  const result = $('cd-saved');
  const error = $('cd-error');
  error.hidden = true;
  result.textContent = 'Saving…';
  const replacing = loaded?.name === name;
  try {
    // The design opened is replaced at the version opened; any other name is created.
    const saved = await api.saveElements(name, toWire(design), replacing ? loaded!.etag : null);
    setLoaded({ name, etag: saved.etag });
    dirty = false;
    result.textContent = `Saved ${name}. ${scanCheckWords(saved.scanCheck, design.elements.map((e) => e.name))}`;
    void fillLoadList();
    // The Template list offers it at once.
    void loadTemplates();
  } catch (err) {
    result.textContent = '';
    if (statusOf(err) === 412) {
      const reload = el('button', { type: 'button', className: 'secondary' }, 'Open their version');
      reload.addEventListener('click', () => void load(name));
      showError(
        replacing
          ? `Someone else changed ${name} since you opened it, so it was not saved. Open their version and make your change again.`
          : `A design named ${name} already exists, so it was not saved. Choose another name, or open it to change it.`,
        reload,
      );
    } else showError(unreachable(err) ? 'Not saved.' : problemInWords(messageOf(err), design.elements.map((e) => e.name)));
  }
}

/** Deletes the saved design the canvas holds, at the version opened (labels that name it no longer print). */
async function deleteDesign(): Promise<void> {
  const api = signedIn.api;
  const was = loaded;
  if (!api || !was || !window.confirm(`Delete the design ${was.name}? Labels that name it will no longer print.`)) return;
  $('cd-error').hidden = true;
  try {
    await api.deleteTemplate(was.name, was.etag);
    setLoaded(null);
    start({ stock: design.stock, elements: [] }, '');
    $('cd-saved').textContent = `Deleted ${was.name}.`;
    await Promise.all([fillLoadList(), loadTemplates()]);
    $<HTMLSelectElement>('cd-load').focus();
  } catch (err) {
    showError(statusOf(err) === 412 ? `Someone else changed ${was.name} since you opened it, so it was not deleted. Open it again first.` : failureText(err, 'Not deleted.'));
  }
}

async function load(name: string): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const error = $('cd-error');
  error.hidden = true;
  if (!name) {
    setLoaded(null);
    start({ stock: design.stock, elements: [] }, '');
    return;
  }
  try {
    const { template, etag } = await api.template(name);
    setLoaded({ name, etag });
    const opened = fromWire(template, gridArea(template.stock));
    start(opened, name);
    const how = openedWords(opened);
    if (how) announce(how);
  } catch (err) {
    error.textContent = failureText(err, 'Not loaded.');
    error.hidden = false;
  }
}

/** A design loaded or imported: nothing to undo before it. */
function start(next: ElementDesign, name: string): void {
  design = next;
  dirty = false;
  history.reset(design);
  selectedKey = design.elements[0]?.key ?? null;
  $<HTMLInputElement>('cd-design-name').value = name;
  $<HTMLSelectElement>('cd-stock').value = design.stock;
  render();
  renderProps();
  schedulePreview();
}

/**
 * Export: the saved design as the service writes it (exportLabelTemplate), so the file is
 * exactly what another deployment's putLabelTemplate takes; unsaved changes are saved first.
 */
async function exportDesign(): Promise<void> {
  const api = signedIn.api;
  if (!api) return;
  const error = $('cd-error');
  error.hidden = true;
  if (!loaded || dirty) {
    error.textContent = loaded ? 'Save your changes first: the file is the saved design.' : 'Save the design first: the file is the saved design.';
    error.hidden = false;
    return;
  }
  try {
    const file = await api.exportTemplate(loaded.name);
    const a = el('a', { href: URL.createObjectURL(file.blob), download: file.name });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    announce(`Exported ${file.name}.`);
  } catch (err) {
    error.textContent = failureText(err, 'Not exported.');
    error.hidden = false;
  }
}

/** Import: a design file into the designer, unsaved (Save keeps it here, under the name in the form). */
async function importDesign(): Promise<void> {
  const input = $<HTMLInputElement>('cd-import');
  const file = input.files?.[0];
  input.value = '';
  if (!file) return;
  const error = $('cd-error');
  error.hidden = true;
  try {
    const wire = parseImport(await file.text());
    setLoaded(null);
    const opened = fromWire(wire, gridArea(wire.stock));
    start(opened, file.name.replace(/\.labelmaker\.json$|\.json$/i, '').toLowerCase());
    dirty = true;
    announce(`Imported ${file.name}: ${design.elements.length} elements. Save it to keep it here. ${openedWords(opened)}`.trim());
  } catch (err) {
    error.textContent = `${file.name} is not a design file: ${err instanceof Error ? err.message : String(err)}`;
    error.hidden = false;
  }
}
