/**
 * Sheet PDFs for an office printer: the sheet products, and the selection's labels as a
 * PDF on the chosen one (with the start position and copies of the batch form).
 */
import type { SheetProduct } from './api.js';
import { batchError } from './batch.js';
import { $, el } from './dom.js';
import { batchOptions, selection } from './selection.js';
import { signedIn } from './session.js';

/** The sheet products (the spec's SheetProduct) as people buy them. */
export const SHEETS: Record<SheetProduct, string> = {
  'avery-l7160': 'Avery L7160 · 63.5 × 38.1 mm, 21 on A4',
  'avery-l7163': 'Avery L7163 · 99.1 × 38.1 mm, 14 on A4',
  'avery-l7651': 'Avery L7651 · 38.1 × 21.2 mm, 65 on A4',
  'avery-l7656': 'Avery L7656 · 46 × 11.1 mm, 84 on A4',
  'herma-4226': 'Herma 4226 · 48.3 × 16.9 mm, 64 on A4',
  'avery-5160': 'Avery 5160 · 2⅝ × 1 in, 30 on Letter',
  'avery-5163': 'Avery 5163 · 4 × 2 in, 10 on Letter',
  'avery-5167': 'Avery 5167 · 1¾ × ½ in, 80 on Letter',
  'avery-22806': 'Avery 22806 · 2 × 2 in, 12 on Letter',
  'label-per-page': 'One label per page (label printer via a print dialog)',
};

/** The sheet products as a select's options. */
export const sheetOptions = () => Object.entries(SHEETS).map(([value, title]) => el('option', { value }, title));

/** Saves a PDF the way a download link does (the page keeps no copy). */
export function download(pdf: Blob, name: string): void {
  const url = URL.createObjectURL(pdf);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function initSheets(): void {
  $<HTMLSelectElement>('sheet').append(...sheetOptions());
  $('batch-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const api = signedIn.api;
    const chosen = selection();
    if (!api || !chosen) return;
    const { template, copies, startAt, sheet } = batchOptions();
    const button = $<HTMLButtonElement>('download-sheet');
    button.disabled = true;
    $('batch-error').hidden = true;
    try {
      const { pdf } = await api.sheet({ sheet, selection: chosen, template, copies, startAt, guides: false });
      download(pdf, `labels-${sheet}.pdf`);
    } catch (err) {
      batchError(err, 'No sheet was made.');
    } finally {
      button.disabled = false;
    }
  });
}
