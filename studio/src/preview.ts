/**
 * The label of the record chosen, from the service, on the chosen template, drawn at its physical size in CSS
 * millimetres with the label's unprinted edge around it, and what it could not show
 * as asked said in words.
 */
import { LABEL_KIND_FACTS, type LabelKind } from '../../src/records/kinds.js';
import { failureText, unreachable, type InventoryRecord, type RecordRef, type Stock } from './api.js';
import { showActionBar } from './action-bar.js';
import { $, el } from './dom.js';
import { hideJob } from './job-box.js';
import { mm, pngSize } from './png.js';
import { adviseFor, hidePrinters } from './printers.js';
import { selection, showBatchSummary } from './selection.js';
import { can, signedIn } from './session.js';
import { findStock } from './stocks.js';
import { stockOf } from './template-choice.js';
import { headerInWords } from './warnings.js';

let selected: InventoryRecord | null = null;
let previewUrl: string | null = null;
let previewSeq = 0;

/** The record whose label is shown. */
export const selectedRecord = (): InventoryRecord | null => selected;

export function initPreview(): void {
  $('label-kind').addEventListener('change', () => void drawLabel());
  $('template').addEventListener('change', () => {
    void drawLabel();
    if (selection()) showBatchSummary();
  });
}

/** Opens a record's label. */
export async function preview(record: InventoryRecord): Promise<void> {
  selected = record;
  const kinds = (Object.keys(record.labels) as LabelKind[]).filter((k) => record.labels[k]);
  const kindSelect = $<HTMLSelectElement>('label-kind');
  kindSelect.replaceChildren(...kinds.map((k) => el('option', { value: k }, LABEL_KIND_FACTS[k].title)));
  $('preview-name').textContent = record.name;
  hideJob();
  const print = $<HTMLButtonElement>('print');
  print.disabled = !can('labels:print');
  print.title = print.disabled ? 'This token cannot print (it lacks labels:print).' : '';
  $('preview').hidden = false;
  $('canvas-designer').hidden = !can('templates:write');
  showActionBar();
  await drawLabel();
  // On a phone the preview is below the list: bring the label itself into view (its top
  // at the top of the screen), not just its heading at the bottom behind the action bar.
  if (window.matchMedia('(max-width: 47.99rem)').matches) $('preview').scrollIntoView({ block: 'start' });
  else $('preview-title').scrollIntoView({ block: 'nearest' });
}

/** Print prints the chosen template: a token without labels:print is told why it cannot, on the page too. */
function showPrintable(): void {
  const disabled = !can('labels:print');
  const why = disabled ? 'This token cannot print (it lacks labels:print).' : '';
  for (const id of ['print', 'bar-print']) {
    const button = $<HTMLButtonElement>(id);
    button.disabled = disabled;
    button.title = why;
  }
  // Said on the page too: a tooltip is out of reach on a phone and to the keyboard.
  const note = $('print-why');
  note.textContent = why;
  note.hidden = !why;
}

/** The label URL of the chosen kind of the record shown. */
export function labelUrl(): string | undefined {
  const kind = $<HTMLSelectElement>('label-kind').value as LabelKind;
  return selected?.labels[kind];
}

/** The selected record's label of the chosen kind, as previewLabelTemplate, listPrinters and the label operations name it. */
export function recordRef(): RecordRef | undefined {
  const kind = $<HTMLSelectElement>('label-kind').value as LabelKind;
  if (!selected || !selected.labels[kind]) return undefined;
  return { kind, id: LABEL_KIND_FACTS[kind].byAssetId ? selected.assetId! : selected.id };
}

/** The label on the chosen template. */
export async function drawLabel(): Promise<void> {
  const api = signedIn.api;
  const url = labelUrl();
  const ref = recordRef();
  if (!api || !url || !ref) return;
  const seq = ++previewSeq;
  const template = $<HTMLSelectElement>('template').value;
  const error = $('preview-error');
  const img = $<HTMLImageElement>('label-img');
  showPrintable();
  img.setAttribute('aria-busy', 'true');
  try {
    const label = await api.labelAt(url, { template });
    if (seq !== previewSeq) return; // a newer choice is on its way
    error.hidden = true;
    $('label-frame').hidden = false;
    showLabel(label.png, template, findStock(stockOf(template)));
    showWarnings(label.warnings);
    // Drawn: which printer for it, and which can print it now (a label that cannot be drawn is not printed: no picker then).
    void adviseFor(ref, template);
  } catch (err) {
    if (seq !== previewSeq) return;
    // No label on this template: the previous one must not pass for it.
    $('label-frame').hidden = true;
    $('label-size').textContent = '';
    showWarnings(null);
    hidePrinters();
    error.textContent = failureText(err, '');
    error.hidden = unreachable(err);
  } finally {
    if (seq === previewSeq) img.removeAttribute('aria-busy');
  }
}

function showLabel(png: Uint8Array, template: string, stock: Stock | undefined): void {
  const img = $<HTMLImageElement>('label-img');
  if (previewUrl) URL.revokeObjectURL(previewUrl);
  previewUrl = URL.createObjectURL(new Blob([png as BlobPart], { type: 'image/png' }));
  const size = pngSize(png);
  const dpi = size?.dpi ?? 300;
  img.src = previewUrl;
  img.alt = `${$('label-kind').querySelector('option:checked')?.textContent ?? 'Label'} of ${selected?.name ?? ''} on ${template}`;
  if (!size) return;
  const w = mm(size.widthPx, dpi);
  const h = mm(size.heightPx, dpi);
  // The label's unprinted edge, as white around the printable area: a code's quiet zone
  // may lie there (layout.ts belowMargin), and the label is shown at its whole size. The
  // service says how wide it is (listStocks), for this PNG when it is the stock's.
  const paper = stock && stock.dpi === dpi && stock.printable.widthDots === size.widthPx ? stock.printable.edgeMm : { across: 0, along: 0 };
  const [px, py] = [paper.across, paper.along];
  // CSS millimetres: as close to true size as the browser knows the screen.
  // The height follows the width: on a narrow screen max-width caps the width, and a fixed
  // height would stretch the label (a QR code would not be square).
  img.style.width = `${w}mm`;
  img.style.height = 'auto';
  img.style.aspectRatio = `${size.widthPx} / ${size.heightPx}`;
  img.style.padding = `${py}mm ${px}mm`;
  img.style.boxSizing = 'content-box';
  img.style.maxWidth = `calc(100% - ${2 * px}mm)`; // the paper stays inside the frame on a narrow screen
  const whole = !stock || !(px || py) ? '' : stock.lengthMm === null ? ` on ${stock.widthMm} mm tape` : ` on a ${stock.widthMm} × ${stock.lengthMm} mm label`;
  $('label-size').textContent = `${w} × ${h} mm (${size.widthPx} × ${size.heightPx} dots at ${dpi} dpi)${whole}`;
  const shownUrl = previewUrl;
  img.decode().then(
    () => {
      // A newer label may have replaced this one while it decoded: its line is not ours to add to.
      if (img.src !== shownUrl) return;
      if (img.getBoundingClientRect().width + 0.5 < ((w + 2 * px) * 96) / 25.4) $('label-size').textContent += ', shown smaller to fit the screen';
    },
    () => {},
  );
}

/** The label's `Label-Warnings`, in words. */
function showWarnings(header: string | null): void {
  const box = $('warnings');
  if (!header) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.replaceChildren(el('strong', {}, 'This label is not quite as asked:'), el('ul', {}, ...headerInWords(header).map((t) => el('li', {}, t))));
  box.hidden = false;
}
