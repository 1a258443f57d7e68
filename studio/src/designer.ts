/**
 * The template designer's form: ordered text lines (custom text with placeholders
 * included), codes, text size bounds, footer and logo, as the LabelTemplateInput
 * the service takes; and back, from a saved LabelTemplate, to edit it. The bounds
 * checked here are the spec's, so a person hears about them as they type; the
 * service checks everything again (and more: whether the design fits its stock).
 */
import type { LabelTemplate, TemplateDesign } from './api.js';
import { $, el } from './dom.js';
import { allStocks, DEFAULT_STOCK } from './stocks.js';

type Line = NonNullable<TemplateDesign['lines']>[number];
type Field = Line['field'];

/** LabelTemplateInput's bounds in spec/openapi.yaml. */
export const BOUNDS = {
  lines: 6,
  customText: 200,
  textPtMin: { min: 5, max: 72 },
  textPtMax: { min: 5, max: 144 },
  logoHeightMm: { min: 2, max: 150 },
  /** Decoded bytes of a logo image (TemplateLogoInput.image: 384 KiB). */
  logoBytes: 384 * 1024,
} as const;

const FIELDS: Record<Field, string> = { name: 'Name', path: 'Location path', assetId: 'Asset id', description: 'Description', custom: 'Custom text' };
export const PLACEHOLDERS = ['{name}', '{assetId}', '{path}', '{id}', '{kind}', '{description}'];
const DEFAULT_LINES: Line[] = [{ field: 'name' }, { field: 'path' }];

/** A declared custom field (listFields), as the designer offers it. */
export interface OfferedField {
  name: string;
  title: string;
  type: 'text' | 'number' | 'date' | 'url';
}
/** The placeholder the designer inserts for a field: dates and numbers with a format (docs/labels-and-templates.md). */
export function fieldPlaceholder(f: OfferedField): string {
  return f.type === 'date' ? `{${f.name}|date:medium}` : f.type === 'number' ? `{${f.name}|number}` : `{${f.name}}`;
}

let lines: Line[] = structuredClone(DEFAULT_LINES);
/** The logo as the service takes it (base64 PNG or SVG), or null for none. */
let logo: { image: string; what: string } | null = null;
/** The saved template the form was loaded from, and the ETag a save must send back. */
let loaded: { name: string; etag: string } | null = null;
let changed: () => void = () => {};

export function initDesigner(onChange: () => void): void {
  changed = onChange;
  $('design-line-add').addEventListener('click', () => {
    if (lines.length >= BOUNDS.lines) return;
    const field = $<HTMLSelectElement>('design-line-field').value as Field;
    lines.push(field === 'custom' ? { field, text: '' } : { field });
    renderLines(lines.length - 1, field === 'custom' ? 'text' : 'field');
    changed();
  });
  $('design-field-insert').addEventListener('click', insertField);
  $<HTMLInputElement>('design-logo').addEventListener('change', () => void readLogo());
  $('design-logo-remove').addEventListener('click', () => {
    setLogo(null);
    changed();
  });
  renderLines();
  setLogo(null);
}

/**
 * The deployment's custom fields (listFields, read at sign-in): the Field list offers them,
 * and Insert field puts one's placeholder into the last custom line (a new one if there is none).
 */
export function showFieldChoices(fields: readonly OfferedField[]): void {
  const select = $<HTMLSelectElement>('design-field');
  select.replaceChildren(...fields.map((f) => el('option', { value: f.name }, `${f.title} (${fieldPlaceholder(f)})`)));
  $('design-fields').hidden = fields.length === 0;
  offered = fields;
}
let offered: readonly OfferedField[] = [];

function insertField(): void {
  const field = offered.find((f) => f.name === $<HTMLSelectElement>('design-field').value);
  if (!field) return;
  const placeholder = fieldPlaceholder(field);
  const last = lines.map((l) => l.field).lastIndexOf('custom');
  if (last >= 0 && (lines[last]!.text ?? '').length + placeholder.length + 1 <= BOUNDS.customText) {
    const text = lines[last]!.text ?? '';
    lines[last] = { field: 'custom', text: text === '' ? placeholder : `${text} ${placeholder}` };
    renderLines(last, 'text');
  } else {
    if (lines.length >= BOUNDS.lines) return;
    lines.push({ field: 'custom', text: `${field.title}: ${placeholder}` });
    renderLines(lines.length - 1, 'text');
  }
  changed();
}

/** The Stock list: the service's stocks (read at sign-in), keeping the one chosen. */
export function showStockChoices(): void {
  const select = $<HTMLSelectElement>('design-stock');
  const chosen = select.value || DEFAULT_STOCK;
  const stocks: readonly { name: string; title: string }[] = allStocks().length > 0 ? allStocks() : [{ name: DEFAULT_STOCK, title: DEFAULT_STOCK }];
  select.replaceChildren(...stocks.map((st) => el('option', { value: st.name }, st.title)));
  select.value = stocks.some((st) => st.name === chosen) ? chosen : (stocks[0]?.name ?? '');
}

export const loadedTemplate = () => loaded;
export const setLoaded = (next: { name: string; etag: string } | null) => {
  loaded = next;
  $('design-delete').hidden = !loaded;
  $('design-editing').textContent = loaded ? `Editing the saved template ${loaded.name}.` : 'A new template.';
};

/** The form as the service's LabelTemplateInput. */
export function designFromForm(): TemplateDesign {
  const form = $<HTMLFormElement>('design-form');
  const code2d = form.querySelector<HTMLInputElement>('input[name="code2d"]:checked')?.value;
  const codes: NonNullable<TemplateDesign['codes']> = [];
  if (code2d === 'qr' || code2d === 'datamatrix') codes.push(code2d);
  if ($<HTMLInputElement>('design-code128').checked) codes.push('code128');
  const design: TemplateDesign = {
    stock: $<HTMLSelectElement>('design-stock').value,
    lines: lines.map((l) => (l.field === 'custom' ? { field: 'custom', text: l.text ?? '' } : { field: l.field })),
    codes,
    codePosition: $<HTMLSelectElement>('design-position').value as 'left' | 'right',
    textPt: { min: Number($<HTMLInputElement>('design-pt-min').value), max: Number($<HTMLInputElement>('design-pt-max').value) },
    footer: $<HTMLInputElement>('design-footer').value,
  };
  if (logo) design.logo = { image: logo.image, heightMm: Number($<HTMLInputElement>('design-logo-height').value) };
  return design;
}

/** A saved template into the form, to edit it. */
export function fillForm(t: LabelTemplate | null, etag = ''): void {
  $<HTMLInputElement>('design-name').value = t?.name ?? '';
  $<HTMLSelectElement>('design-stock').value = t?.stock ?? DEFAULT_STOCK;
  lines = structuredClone(t?.lines ?? DEFAULT_LINES);
  const code2d = t ? (t.codes.find((c) => c !== 'code128') ?? '') : 'qr';
  const radio = document.querySelector<HTMLInputElement>(`input[name="code2d"][value="${code2d}"]`);
  if (radio) radio.checked = true;
  $<HTMLInputElement>('design-code128').checked = t?.codes.includes('code128') ?? false;
  $<HTMLSelectElement>('design-position').value = t?.codePosition ?? 'left';
  $<HTMLInputElement>('design-pt-min').value = String(t?.textPt.min ?? 7);
  $<HTMLInputElement>('design-pt-max').value = String(t?.textPt.max ?? 36);
  $<HTMLInputElement>('design-footer').value = t?.footer ?? '';
  $<HTMLInputElement>('design-logo-height').value = String(t?.logo?.heightMm ?? 8);
  // The stored logo is the 1-bit picture as printed: sent back as it is, it prints the same.
  setLogo(t?.logo ? { image: t.logo.png, what: 'The saved logo (1-bit, as printed).' } : null);
  renderLines();
  setLoaded(t ? { name: t.name, etag } : null);
}

/**
 * What is wrong with the form by the spec's bounds, as a sentence, or null. Each
 * field that is wrong is marked (aria-invalid, and its validity for the browser).
 */
export function formProblem(): string | null {
  const problems: string[] = [];
  const number = (id: string, what: string, bounds: { min: number; max: number }) => {
    const input = $<HTMLInputElement>(id);
    const value = Number(input.value);
    const wrong = input.value.trim() === '' || !Number.isFinite(value) || value < bounds.min || value > bounds.max;
    mark(input, wrong ? `${what} must be between ${bounds.min} and ${bounds.max}.` : '');
    if (wrong) problems.push(input.validationMessage);
    return wrong ? undefined : value;
  };
  const min = number('design-pt-min', 'The smallest text size', BOUNDS.textPtMin);
  const max = number('design-pt-max', 'The largest text size', BOUNDS.textPtMax);
  if (min !== undefined && max !== undefined && min > max) {
    mark($<HTMLInputElement>('design-pt-min'), `The smallest text size (${min} pt) is larger than the largest (${max} pt).`);
    problems.push($<HTMLInputElement>('design-pt-min').validationMessage);
  }
  if (logo) number('design-logo-height', 'The logo height (mm)', BOUNDS.logoHeightMm);
  else mark($<HTMLInputElement>('design-logo-height'), '');
  document.querySelectorAll<HTMLInputElement>('#design-lines .line-text').forEach((input, i) => {
    const empty = !input.hidden && input.value.trim() === '';
    mark(input, empty ? `Line ${i + 1} needs its text.` : '');
    if (empty) problems.push(input.validationMessage);
  });
  return problems.length > 0 ? problems.join(' ') : null;
}

function mark(input: HTMLInputElement, message: string): void {
  input.setCustomValidity(message);
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** A problem's detail with its JSON pointer (`/design/textPt/min: ...`) said as the form's field. */
export function readableDetail(detail: string): string {
  const m = /^(?:\/design)?(\/[A-Za-z]+(?:\/[A-Za-z0-9]+)*): (.*)$/s.exec(detail);
  if (!m) return detail;
  const [, pointer, rest] = m as unknown as [string, string, string];
  const line = /^\/lines\/(\d+)/.exec(pointer);
  const field = line
    ? `Line ${Number(line[1]) + 1}`
    : ({ '/stock': 'Stock', '/codes': 'Codes', '/codePosition': '2D code side', '/textPt/min': 'Smallest text size', '/textPt/max': 'Largest text size', '/footer': 'Footer', '/logo/image': 'Logo', '/logo/heightMm': 'Logo height', '/logo': 'Logo', '/': 'Template' } as Record<string, string>)[pointer];
  return field ? `${field}: ${rest}` : detail;
}

// ---- lines ------------------------------------------------------------------

/** Draws the line list; `focus` puts the keyboard back where the person was. */
function renderLines(focusLine?: number, focus: 'field' | 'text' | 'up' | 'down' | 'remove' = 'field'): void {
  const list = $('design-lines');
  list.replaceChildren(...lines.map(lineItem));
  const full = lines.length >= BOUNDS.lines;
  $<HTMLButtonElement>('design-line-add').disabled = full;
  $('design-lines-count').textContent = `${lines.length} of at most ${BOUNDS.lines} lines${full ? ' (full)' : ''}; the first is the title.`;
  if (focusLine !== undefined) {
    const item = list.children[Math.min(focusLine, lines.length - 1)];
    const target = item?.querySelector<HTMLElement>(`[data-part="${focus}"]:not([disabled]):not([hidden])`) ?? item?.querySelector<HTMLElement>('[data-part="field"]') ?? $('design-line-field');
    target.focus();
  }
}

function lineItem(line: Line, i: number): HTMLLIElement {
  const n = i + 1;
  const field = el('select', { className: 'line-field' }, ...Object.entries(FIELDS).map(([value, title]) => el('option', { value, selected: value === line.field }, title)));
  field.dataset.part = 'field';
  field.setAttribute('aria-label', `Line ${n}`);
  const text = el('input', { className: 'line-text', value: line.text ?? '', maxLength: BOUNDS.customText, placeholder: 'Asset {assetId}', autocomplete: 'off', hidden: line.field !== 'custom' });
  text.dir = 'auto';
  text.dataset.part = 'text';
  text.setAttribute('aria-label', `Line ${n} text`);
  text.setAttribute('aria-describedby', 'design-placeholders');
  field.addEventListener('change', () => {
    const next = field.value as Field;
    lines[i] = next === 'custom' ? { field: next, text: lines[i]!.text ?? '' } : { field: next };
    renderLines(i, next === 'custom' ? 'text' : 'field');
    changed();
  });
  text.addEventListener('input', () => {
    lines[i] = { field: 'custom', text: text.value };
    changed();
  });
  const button = (part: 'up' | 'down' | 'remove', label: string, symbol: string, disabled: boolean, act: () => number) => {
    const b = el('button', { type: 'button', className: 'secondary icon', disabled }, symbol);
    b.dataset.part = part;
    b.setAttribute('aria-label', label);
    b.title = label;
    b.addEventListener('click', () => {
      const at = act();
      renderLines(at, part);
      changed();
    });
    return b;
  };
  const swap = (a: number, b: number) => {
    [lines[a], lines[b]] = [lines[b]!, lines[a]!];
  };
  // The number is shown for the eye; the field's own name says it to a screen reader.
  const number = el('span', { className: 'line-n' }, `${n}.`);
  number.setAttribute('aria-hidden', 'true');
  return el(
    'li',
    {},
    number,
    field,
    text,
    el(
      'span',
      { className: 'line-buttons' },
      button('up', `Move line ${n} up`, '↑', i === 0, () => (swap(i, i - 1), i - 1)),
      button('down', `Move line ${n} down`, '↓', i === lines.length - 1, () => (swap(i, i + 1), i + 1)),
      button('remove', `Remove line ${n}`, '✕', false, () => (lines.splice(i, 1), i)),
    ),
  );
}

// ---- logo -------------------------------------------------------------------

function setLogo(next: typeof logo): void {
  logo = next;
  $('design-logo-remove').hidden = !logo;
  $('design-logo-status').textContent = logo ? logo.what : 'No logo.';
  if (!logo) $<HTMLInputElement>('design-logo').value = '';
}

async function readLogo(): Promise<void> {
  const input = $<HTMLInputElement>('design-logo');
  const file = input.files?.[0];
  if (!file) return;
  const status = $('design-logo-status');
  if (file.size > BOUNDS.logoBytes) {
    input.value = '';
    status.textContent = `${file.name} is ${Math.round(file.size / 1024)} KB; a logo may be at most ${BOUNDS.logoBytes / 1024} KB.`;
    return;
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  // The service decides what it can use (it names the problem); the form only turns bytes into base64.
  setLogo({ image: base64(bytes), what: `${file.name} (${Math.max(1, Math.round(bytes.length / 1024))} KB).` });
  changed();
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
