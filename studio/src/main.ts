/**
 * The label studio: sign in with a token, find a record, see its label at true
 * size on a chosen template, print it and watch the job. Plain DOM, no framework:
 * one page, a handful of controls.
 */
import { findStock, paperDots, STOCKS, type Stock } from '../../src/labels/stock.js';
import { LABEL_KIND_FACTS, type LabelKind } from '../../src/records/kinds.js';
import { connect, failureText, jobIdOf, messageOf, statusOf, unreachable, type InventoryRecord, type RecordRef, type PrintBatch, type PrintJob, type Selection, type Session, type SheetProduct, type Studio } from './api.js';
import { designFromForm, fillForm, formProblem, initDesigner, loadedTemplate, readableDetail, setLoaded } from './designer.js';
import { $, el } from './dom.js';
import { jobProgress, jobsPanel, printerProblem, shownState } from './jobs.js';
import { mm, pngSize } from './png.js';
import { forgetToken, storeToken, storedToken } from './token.js';

const ASSET_ID = /^[0-9]+(-[0-9]+)*$/;
const PAGE_SIZE = 25;

let api: Studio | null = null;
let session: Session | null = null;
let filters: Parameters<Studio['records']>[0] = {};
let cursor: string | null = null;
let crumbs: { id: string; name: string }[] = [];
let selected: InventoryRecord | null = null;
let previewUrl: string | null = null;
let previewSeq = 0;
let jobTimer: number | undefined;
const jobs = jobsPanel();

// ---- sign in -------------------------------------------------------------

async function signIn(token: string): Promise<void> {
  const candidate = connect(token, {
    onUnauthorized: () => {
      if (api === candidate) sessionEnded();
    },
    onReach: (reachable) => {
      if (api === candidate) serviceReach(reachable);
    },
  });
  session = await candidate.session();
  api = candidate;
  storeToken(token);
  showSession();
  $('sign-in').hidden = true;
  $('sign-in-error').hidden = true;
  $('studio').hidden = false;
  if (can('labels:print')) jobs.show(candidate);
  await loadTemplates();
  $<HTMLInputElement>('q').focus();
}

function signOut(): void {
  forgetToken();
  api = null;
  session = null;
  window.clearTimeout(jobTimer);
  window.clearTimeout(batchTimer);
  jobs.hide();
  serviceGone = false;
  $('service-gone').hidden = true;
  picked.clear();
  chosen = null;
  countSeq++;
  $('batch').hidden = true;
  $('session').hidden = true;
  $('studio').hidden = true;
  $('preview').hidden = true;
  showActionBar();
  $('results').replaceChildren();
  $('results-status').textContent = '';
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
  if (!session) return;
  $('session-name').textContent = session.name;
  $('session-name').dir = 'auto';
  $('scopes').replaceChildren(...session.scopes.map((s) => el('li', { className: 'scope' }, s)));
  $('session').hidden = false;
}

const can = (scope: Session['scopes'][number]) => session?.scopes.includes(scope) ?? false;

// ---- the service going away -------------------------------------------------

/**
 * When the service cannot be reached, the page says so once, at its top (role alert),
 * and the panels say only what did not happen: not the same sentence in every panel.
 * What refreshes itself (the job list, a job or batch being watched) stops and shows
 * nothing stale; the first answer from the service (any request, or "Try again")
 * takes the message away and picks them up again.
 */
let serviceGone = false;
/** A job or batch that was being watched when the service went away: watched again when it is back. */
let resumeWatch: (() => void) | null = null;

function serviceReach(reachable: boolean): void {
  if (reachable === !serviceGone) return;
  serviceGone = !reachable;
  $('service-gone').hidden = reachable;
  if (!reachable) {
    jobs.pause();
    return;
  }
  void jobs.refresh();
  const resume = resumeWatch;
  resumeWatch = null;
  resume?.();
}

$('service-retry').addEventListener('click', async () => {
  const button = $<HTMLButtonElement>('service-retry');
  if (!api || isBusy(button)) return;
  busy(button, true);
  // Any answer says it is back (serviceReach); no answer leaves the message up.
  await api.session().catch(() => {});
  busy(button, false);
});

/** "Not updated since 10:42:03": a watched job or batch whose state the service could not be asked for. */
const staleSince = () => el('span', { className: 'stale' }, ` Not updated since ${new Date().toLocaleTimeString()}.`);

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

// ---- find records --------------------------------------------------------

async function search(next: typeof filters, append = false): Promise<void> {
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
  const ref = selectedRef(record);
  const check = el('input', { type: 'checkbox', className: 'check', checked: picked.has(keyOf(ref)) });
  check.setAttribute('aria-label', `Select ${record.name}`);
  check.addEventListener('change', () => {
    // Ticking after choosing a location or a range replaces that (and says so); this box keeps its tick.
    const on = check.checked;
    if (chosen?.mode !== 'records') choose({ mode: 'records' });
    else if (picked.size === 0) newSelection();
    check.checked = on;
    if (check.checked) picked.set(keyOf(ref), ref);
    else picked.delete(keyOf(ref));
    showBatch();
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

function browse(path: typeof crumbs): void {
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

$('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const q = $<HTMLInputElement>('q').value.trim();
  const kind = $<HTMLSelectElement>('kind').value as LabelKind | '';
  crumbs = [];
  $('crumbs').hidden = true;
  $('select-here').hidden = true;
  const next: typeof filters = {};
  if (q) Object.assign(next, ASSET_ID.test(q) ? { assetId: q } : { q });
  if (kind) next.kind = kind;
  void search(next);
});
$('browse-top').addEventListener('click', () => browse([]));
$('more').addEventListener('click', () => void search(filters, true));

// ---- preview -------------------------------------------------------------

/** Each saved template's stock, by template name (the preview draws the stock's paper around the label). */
let savedStocks = new Map<string, string>();

async function loadTemplates(): Promise<void> {
  const select = $<HTMLSelectElement>('template');
  const chosen = select.value;
  const stock = el('optgroup', { label: 'Label stock' }, ...STOCKS.map((s) => el('option', { value: s.name }, s.title)));
  select.replaceChildren(stock);
  let names: string[] = [];
  try {
    const saved = await api!.savedTemplates();
    names = saved.map((t) => t.name);
    savedStocks = new Map(saved.map((t) => [t.name, t.stock]));
    if (names.length > 0) select.prepend(el('optgroup', { label: 'Saved templates' }, ...names.map((name) => el('option', { value: name }, name))));
  } catch {
    // Saved templates are optional: the stock list still works.
  }
  select.value = chosen && [...select.options].some((o) => o.value === chosen) ? chosen : 'brother-ql-62x29';
  const load = $<HTMLSelectElement>('design-load');
  const editing = loadedTemplate()?.name ?? '';
  load.replaceChildren(el('option', { value: '' }, 'A new template'), ...names.map((name) => el('option', { value: name }, `Saved: ${name}`)));
  load.value = names.includes(editing) ? editing : '';
}

// ---- design a template (tokens with templates:write) -------------------------

initDesigner(() => scheduleDesignPreview());

/** Whether the label shown is the design being edited (the designer is open). */
const designing = () => can('templates:write') && $<HTMLDetailsElement>('designer').open;
let designTimer: number | undefined;
/** Whether the form differs from the template it was loaded from or saved as. */
let designDirty = false;

/** The preview follows the form, a moment after the person stops typing. */
function scheduleDesignPreview(): void {
  designDirty = true;
  $('design-saved').textContent = '';
  window.clearTimeout(designTimer);
  designTimer = window.setTimeout(() => void drawLabel(), 350);
}

/** The name and "start from" do not change the design: no new preview for them. */
const redraws = (e: Event) => {
  const id = (e.target as HTMLElement).id;
  if (id !== 'design-name' && id !== 'design-load') scheduleDesignPreview();
  templateFollowsDesign();
  showAssetOnlyNote();
};
$('design-form').addEventListener('input', redraws);
$('design-form').addEventListener('change', redraws);

/** The Template choice before the designer opened: chosen again when it closes (unless a save chose another). */
let templateBeforeDesign: string | null = null;

$('designer').addEventListener('toggle', () => {
  const select = $<HTMLSelectElement>('template');
  if (designing()) {
    templateBeforeDesign = select.value;
    // A new design starts on the stock of the template chosen, not on another one under the person's eyes.
    if (!loadedTemplate() && !designDirty) $<HTMLSelectElement>('design-stock').value = savedStocks.get(select.value) ?? select.value;
  } else if (templateBeforeDesign !== null) {
    select.value = templateBeforeDesign;
    templateBeforeDesign = null;
  }
  templateFollowsDesign();
  showAssetOnlyNote();
  void drawLabel();
});

/**
 * While the designer is open the label is drawn with the design, on its stock: the
 * Template list shows that stock (or the saved template the designer holds, unchanged)
 * and waits, disabled, with the reason beside it, instead of naming another template.
 */
function templateFollowsDesign(): void {
  const select = $<HTMLSelectElement>('template');
  const why = $('template-why');
  const on = designing() && !$('preview').hidden;
  select.disabled = on;
  why.hidden = !on;
  if (!on) return;
  const saved = loadedTemplate();
  const shown = saved && !designDirty ? saved.name : $<HTMLSelectElement>('design-stock').value;
  if ([...select.options].some((o) => o.value === shown)) select.value = shown;
  why.textContent =
    saved && !designDirty
      ? `The designer holds the saved template ${saved.name}: the label is drawn with it. Close the designer to choose another template.`
      : "The label is drawn with the design, on its stock (Stock, in the designer). Close the designer to choose another template.";
}

/**
 * The asset id and its barcode are on asset labels only: a location's or item's label
 * has no asset id. While the label shown is not an asset label and the design asks for
 * them, say so (and offer the record's asset label) instead of leaving them out silently.
 */
function showAssetOnlyNote(): void {
  const note = $('design-asset-only');
  const kind = $<HTMLSelectElement>('label-kind').value;
  const asks = $<HTMLInputElement>('design-code128').checked || designFromForm().lines?.some((l) => l.field === 'assetId' || (l.field === 'custom' && l.text?.includes('{assetId}')));
  const show = designing() && !!asks && kind !== 'asset';
  note.hidden = !show;
  if (!show) return;
  const what = kind === 'location' ? "a location's label" : 'the item label';
  const offer = selected?.labels.asset ? el('button', { type: 'button', className: 'secondary' }, 'Show the asset label') : null;
  offer?.addEventListener('click', () => {
    $<HTMLSelectElement>('label-kind').value = 'asset';
    showAssetOnlyNote();
    void drawLabel();
  });
  note.replaceChildren(
    `The asset barcode and the asset id are drawn on asset labels only; ${what} shown has no asset id, so they are left out${offer ? '.' : ' (this record has no asset id).'}`,
    ...(offer ? [' ', offer] : []),
  );
}

/** What is wrong with the design as it is (the form's bounds, or the service's reason it cannot be drawn). */
function showDesignProblem(message: string | null): void {
  const problem = $('design-problem');
  problem.hidden = message === null;
  problem.textContent = message ?? '';
}

/** Why loading, saving or deleting did not happen; it stays until the next of those. */
function showDesignError(message: string | null, action?: HTMLButtonElement): void {
  const error = $('design-error');
  error.hidden = message === null;
  error.replaceChildren(message ?? '', ...(action ? [' ', action] : []));
}

$('design-load').addEventListener('change', () => void loadDesign($<HTMLSelectElement>('design-load').value));

async function loadDesign(name: string): Promise<void> {
  if (!api) return;
  showDesignError(null);
  if (!name) {
    fillForm(null);
  } else {
    try {
      const { template, etag } = await api.template(name);
      fillForm(template, etag);
      designDirty = false;
    } catch (err) {
      showDesignError(failureText(err, 'Not loaded.'));
      return;
    }
  }
  $<HTMLSelectElement>('design-load').value = name;
  templateFollowsDesign();
  showAssetOnlyNote();
  await drawLabel();
}

$('design-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!api) return;
  const name = $<HTMLInputElement>('design-name').value.trim();
  showDesignError(null);
  const problem = formProblem();
  if (problem) return showDesignProblem(problem);
  const loaded = loadedTemplate();
  try {
    // The template the form was loaded from is replaced at the version loaded; any other name is created.
    const etag = await api.saveTemplate(name, designFromForm(), loaded?.name === name ? loaded.etag : null);
    setLoaded({ name, etag });
    designDirty = false;
    await loadTemplates();
    $<HTMLSelectElement>('template').value = name;
    // Saved: it stays the chosen template when the designer closes.
    templateBeforeDesign = name;
    $('design-saved').textContent = `Saved ${name}.`;
    await drawLabel();
  } catch (err) {
    if (statusOf(err) === 412) {
      const reload = el('button', { type: 'button', className: 'secondary' }, 'Load their version');
      reload.addEventListener('click', () => void loadDesign(name));
      showDesignError(
        loaded?.name === name
          ? `Someone else changed ${name} since you opened it, so it was not saved. Load their version and make your change again.`
          : `A template named ${name} already exists, so it was not saved. Choose another name, or load it to edit it.`,
        reload,
      );
    } else showDesignError(unreachable(err) ? 'Not saved.' : readableDetail(messageOf(err)));
    $('design-error').scrollIntoView({ block: 'nearest' });
  }
});

$('design-delete').addEventListener('click', async () => {
  const loaded = loadedTemplate();
  if (!api || !loaded || !window.confirm(`Delete the template ${loaded.name}? Labels that name it will no longer print.`)) return;
  showDesignError(null);
  try {
    await api.deleteTemplate(loaded.name, loaded.etag);
    fillForm(null);
    await loadTemplates();
    $('design-saved').textContent = `Deleted ${loaded.name}.`;
    $<HTMLSelectElement>('design-load').focus();
    await drawLabel();
  } catch (err) {
    showDesignError(statusOf(err) === 412 ? `Someone else changed ${loaded.name} since you opened it, so it was not deleted. Load it again first.` : failureText(err, 'Not deleted.'));
  }
});

async function preview(record: InventoryRecord): Promise<void> {
  selected = record;
  const kinds = (Object.keys(record.labels) as LabelKind[]).filter((k) => record.labels[k]);
  const kindSelect = $<HTMLSelectElement>('label-kind');
  kindSelect.replaceChildren(...kinds.map((k) => el('option', { value: k }, LABEL_KIND_FACTS[k].title)));
  $('preview-name').textContent = record.name;
  $('job').hidden = true;
  const print = $<HTMLButtonElement>('print');
  print.disabled = !can('labels:print');
  print.title = print.disabled ? 'This token cannot print (it lacks labels:print).' : '';
  $('preview').hidden = false;
  $('designer').hidden = !can('templates:write');
  showActionBar();
  templateFollowsDesign();
  showAssetOnlyNote();
  await drawLabel();
  // On a phone the preview is below the list: bring the label itself into view (its top
  // at the top of the screen), not just its heading at the bottom behind the action bar.
  if (window.matchMedia('(max-width: 47.99rem)').matches) $('preview').scrollIntoView({ block: 'start' });
  else $('preview-title').scrollIntoView({ block: 'nearest' });
}

/**
 * Print prints the chosen template; while the designer shows an unsaved design
 * instead, printing would not print what is shown, so it waits for the design
 * to be saved (and chosen) or the designer closed.
 */
function showPrintable(printable: boolean): void {
  const disabled = !can('labels:print') || !printable;
  const why = !can('labels:print') ? 'This token cannot print (it lacks labels:print).' : printable ? '' : 'The label shown is an unsaved design: save it and choose it, or close the designer, to print.';
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

function labelUrl(): string | undefined {
  const kind = $<HTMLSelectElement>('label-kind').value as LabelKind;
  return selected?.labels[kind];
}

/** The selected record's label of the chosen kind, as previewLabelTemplate names it. */
function recordRef(): RecordRef | undefined {
  const kind = $<HTMLSelectElement>('label-kind').value as LabelKind;
  if (!selected || !selected.labels[kind]) return undefined;
  return { kind, id: LABEL_KIND_FACTS[kind].byAssetId ? selected.assetId! : selected.id };
}

/** The label on the chosen template, or while designing, the design as it is in the form. */
async function drawLabel(): Promise<void> {
  const url = labelUrl();
  const ref = recordRef();
  if (!api || !url || !ref) return;
  window.clearTimeout(designTimer);
  const seq = ++previewSeq;
  const design = designing();
  const template = design ? 'the design being edited' : $<HTMLSelectElement>('template').value;
  const error = $('preview-error');
  const img = $<HTMLImageElement>('label-img');
  // A saved design, unchanged and chosen as the template, prints as shown.
  showPrintable(!design || (!designDirty && loadedTemplate()?.name === $<HTMLSelectElement>('template').value));
  if (design) {
    const problem = formProblem();
    showDesignProblem(problem);
    if (problem) {
      $('design-preview-status').textContent = 'The preview waits for the design to be complete.';
      return;
    }
    $('design-preview-status').textContent = 'Drawing the design…';
  }
  img.setAttribute('aria-busy', 'true');
  try {
    const label = design ? await api.previewTemplate(designFromForm(), ref) : await api.labelAt(url, { template });
    if (seq !== previewSeq) return; // a newer choice is on its way
    error.hidden = true;
    $('label-frame').hidden = false;
    const stock = findStock(design ? $<HTMLSelectElement>('design-stock').value : (savedStocks.get(template) ?? template));
    showLabel(label.png, template, stock);
    showWarnings(label.warnings);
    $('design-preview-status').textContent = design ? 'The label above shows this design (not saved yet).' : '';
  } catch (err) {
    if (seq !== previewSeq) return;
    // No label on this template: the previous one must not pass for it.
    $('label-frame').hidden = true;
    $('label-size').textContent = '';
    showWarnings(null);
    if (design) {
      // The service's reason, next to the field it names.
      $('design-preview-status').textContent = unreachable(err) ? 'The design is not drawn.' : 'The design cannot be drawn.';
      showDesignProblem(unreachable(err) ? null : readableDetail(messageOf(err)));
    } else {
      error.textContent = failureText(err, '');
      error.hidden = unreachable(err);
    }
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
  // may lie there (layout.ts belowMargin), and the label is shown at its whole size.
  const paper = stock && stock.dpi === dpi && stock.widthDots === size.widthPx ? paperDots(stock) : { across: 0, along: 0 };
  const [px, py] = [mm(paper.across, dpi), mm(paper.along, dpi)];
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
  img.decode().then(
    () => {
      if (img.getBoundingClientRect().width + 0.5 < ((w + 2 * px) * 96) / 25.4) $('label-size').textContent += ', shown smaller to fit the screen';
    },
    () => {},
  );
}

const WARNINGS: Record<string, string> = {
  'name-not-visible': 'The name has no visible character; it prints as [no name].',
  'code-omitted': 'A code was left out for lack of room on this stock.',
};

function showWarnings(header: string | null): void {
  const box = $('warnings');
  if (!header) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const items = header.split(',').map((w) => w.trim()).filter(Boolean).map((w) => {
    if (w.startsWith('missing-glyphs=')) return `No font has these characters; they print as boxes: ${w.slice('missing-glyphs='.length)}`;
    return WARNINGS[w] ?? w;
  });
  box.replaceChildren(el('strong', {}, 'This label is not quite as asked:'), el('ul', {}, ...items.map((t) => el('li', {}, t))));
  box.hidden = false;
}

$('label-kind').addEventListener('change', () => {
  showAssetOnlyNote();
  void drawLabel();
});
$('template').addEventListener('change', () => {
  void drawLabel();
  if (selection()) showBatchSummary();
});

// ---- print ---------------------------------------------------------------

/**
 * A button busy with its request says so (aria-disabled) but stays enabled: disabling
 * the focused button would drop the keyboard's focus to the page body.
 */
function busy(button: HTMLButtonElement, on: boolean): void {
  if (on) button.setAttribute('aria-disabled', 'true');
  else button.removeAttribute('aria-disabled');
}
const isBusy = (button: HTMLButtonElement) => button.getAttribute('aria-disabled') === 'true';

$('print').addEventListener('click', async () => {
  const url = labelUrl();
  const print = $<HTMLButtonElement>('print');
  if (!api || !url || isBusy(print)) return;
  busy(print, true);
  window.clearTimeout(jobTimer);
  try {
    const label = await api.labelAt(url, { template: $<HTMLSelectElement>('template').value, print: true, idempotencyKey: crypto.randomUUID() });
    if (!label.printJob) throw new Error('The service did not say which print job it made.');
    void jobs.refresh();
    await watchJob(jobIdOf(label.printJob));
  } catch (err) {
    showJob(null, failureText(err, ''));
  } finally {
    busy(print, false);
  }
});

async function watchJob(id: string, started = Date.now()): Promise<void> {
  if (!api) return;
  try {
    const job = await api.printJob(id);
    showJob(job);
    if ((job.state === 'queued' || job.state === 'printing') && Date.now() - started < 120_000) {
      jobTimer = window.setTimeout(() => void watchJob(id, started), 1000);
    }
  } catch (err) {
    if (!unreachable(err)) return showJob(null, messageOf(err));
    // The job exists and may print: its last known state stays, marked as such, until the service is back.
    $('job').append(staleSince());
    resumeWatch = () => void watchJob(id, Date.now());
  }
}

function showJob(job: PrintJob | null, error?: string): void {
  const box = $('job');
  box.hidden = false;
  if (!job) {
    box.className = 'job failed';
    box.replaceChildren(el('strong', {}, error ? 'Not printed: ' : 'Not printed.'), error ?? '');
    return;
  }
  const shown = shownState(job);
  box.className = `job ${shown}`;
  const state = el('strong', { className: 'state' }, shown);
  state.dataset.state = shown;
  const progress = jobProgress(job);
  const lines: (Node | string)[] = ['Print job ', state, ` · ${job.title}${progress ? ` · ${progress}` : ''}`];
  if (job.lastError && (shown === 'queued' || shown === 'failed')) lines.push(el('br'), printerProblem(job.lastError));
  if (job.possibleDuplicate) lines.push(el('br'), 'It may have printed twice.');
  box.dataset.job = job.id;
  box.replaceChildren(...lines);
  if (job.state === 'failed' && can('labels:print')) {
    // A failed (or cancelled) job stays so; trying again is a new job for the same label.
    const again = el('button', { type: 'button', className: 'secondary' }, 'Try again');
    again.addEventListener('click', () => $('print').click());
    box.append(el('div', { className: 'row' }, again));
  }
}

// ---- select many: a batch on the label printer, or a sheet PDF ------------------

type SelectedRef = { kind: LabelKind; id: string };
const SHEETS: Record<SheetProduct, string> = {
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
/**
 * What is selected: one kind of selection at a time (the API takes one). Ticked records;
 * every item in a location, at any depth; a location and every location inside it; or
 * an asset-id range. Choosing another replaces it, and the page says so before (the
 * hints by the buttons) and after (in the selection panel).
 */
type Chosen =
  | { mode: 'records' }
  | { mode: 'items'; location: { id: string; name: string } }
  | { mode: 'tree'; location: { id: string; name: string } }
  | { mode: 'range'; from: string; to: string };
let chosen: Chosen | null = null;
/** The ticked records (mode 'records'). */
const picked = new Map<string, SelectedRef>();
let batchTimer: number | undefined;
let batchRunning = false;
/** How many labels the selection names (one copy each): null while a whole location or a range is being counted. */
let selectedCount: number | null = 0;
let countSeq = 0;
/** Above this many labels, "Print all" asks first, naming the count and the template. */
const CONFIRM_ABOVE = 10;
/** Counting stops here: the number is said as "more than". */
const COUNT_CAP = 5000;

const keyOf = (ref: SelectedRef) => `${ref.kind}:${ref.id}`;
/** Asset searches select asset labels; otherwise each record's own label. */
function selectedRef(record: InventoryRecord): SelectedRef {
  return filters?.kind === 'asset' && record.assetId ? { kind: 'asset', id: record.assetId } : { kind: record.kind, id: record.id };
}

function selection(): Selection | null {
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
function showReplaceHints(): void {
  const here = crumbs.at(-1);
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
      const page = await api!.records({ ...filters, limit: 200, cursor: next });
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

/** The template a batch prints on, as the person chose it from the list. */
function templateTitle(): string {
  const option = $<HTMLSelectElement>('template').selectedOptions[0];
  const name = option?.value || 'brother-ql-62x29';
  return savedStocks.has(name) ? `the saved template ${name}` : (option?.textContent ?? name);
}

/** What "Print all" would print: the count with the copies, and the template. */
function batchTotal(): { total: number | null; text: string } {
  const copies = batchOptions().copies;
  const total = selectedCount === null ? null : selectedCount * copies;
  const each = copies > 1 && selectedCount !== null ? ` (${countText(selectedCount)} × ${copies} copies)` : '';
  return { total, text: `${countText(total)}${each} on ${templateTitle()}` };
}

function showBatchSummary(): void {
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

function showBatch(): void {
  // What a finished batch said was about the selection before this one.
  if (!batchRunning) $('batch-status').hidden = true;
  const box = $('batch');
  box.hidden = !selection();
  void countSelection();
  const batchButton = $<HTMLButtonElement>('print-batch');
  batchButton.disabled = !can('labels:print');
  batchButton.title = batchButton.disabled ? 'This token cannot print (it lacks labels:print).' : '';
  showActionBar();
}

// ---- the action bar (phones) -------------------------------------------------

/**
 * On a phone the main actions stay at the bottom of the screen, so a person at the
 * shelf need not scroll to them: print this label, and with a selection, print it
 * all or get its sheet. The bar's buttons press the panels' own (one code path);
 * wide screens hide it (CSS), as the panels stay in view there.
 */
function showActionBar(): void {
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

$('bar-print').addEventListener('click', () => $('print').click());
$('bar-print-batch').addEventListener('click', () => $('print-batch').click());
$('bar-sheet').addEventListener('click', () => $<HTMLFormElement>('batch-form').requestSubmit());

function batchOptions(): { template: string; copies: number; startAt: number; sheet: SheetProduct } {
  return {
    template: $<HTMLSelectElement>('template').value || 'brother-ql-62x29',
    copies: Number($<HTMLInputElement>('copies').value) || 1,
    startAt: Number($<HTMLInputElement>('start-at').value) || 1,
    sheet: $<HTMLSelectElement>('sheet').value as SheetProduct,
  };
}

/** `notDone` is all that is said when the service could not be reached (the page's message says why). */
function batchError(err: unknown, notDone: string): void {
  const box = $('batch-error');
  box.textContent = failureText(err, notDone);
  box.hidden = false;
}

$('copies').addEventListener('input', () => showBatchSummary());
$<HTMLSelectElement>('sheet').append(...Object.entries(SHEETS).map(([value, title]) => el('option', { value }, title)));
for (const [id, mode] of [['select-location', 'items'], ['select-tree', 'tree']] as const) {
  $(id).addEventListener('click', () => {
    const last = crumbs.at(-1);
    if (!last) return;
    choose({ mode, location: last });
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

$('batch-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const chosen = selection();
  if (!api || !chosen) return;
  const { template, copies, startAt, sheet } = batchOptions();
  const button = $<HTMLButtonElement>('download-sheet');
  button.disabled = true;
  $('batch-error').hidden = true;
  try {
    const pdf = await api.sheet({ sheet, selection: chosen, template, copies, startAt, guides: false });
    const url = URL.createObjectURL(pdf);
    const a = el('a', { href: url, download: `labels-${sheet}.pdf` });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    batchError(err, 'No sheet was made.');
  } finally {
    button.disabled = false;
  }
});

$('print-batch').addEventListener('click', async () => {
  const chosen = selection();
  const button = $<HTMLButtonElement>('print-batch');
  if (!api || !chosen || isBusy(button)) return;
  const { template, copies } = batchOptions();
  const { total, text } = batchTotal();
  // Many labels (or a count not known yet) are confirmed first, naming the count and the template.
  if ((total === null || total > CONFIRM_ABOVE) && !window.confirm(`Print ${text}?`)) return;
  busy(button, true);
  $('batch-error').hidden = true;
  window.clearTimeout(batchTimer);
  try {
    const batch = await api.printBatch({ selection: chosen, template, copies });
    void jobs.refresh();
    await watchBatch(batch);
  } catch (err) {
    batchError(err, 'Nothing was printed.');
  } finally {
    busy(button, false);
  }
});

async function watchBatch(batch: PrintBatch, started = Date.now()): Promise<void> {
  showBatchStatus(batch);
  batchRunning = batch.state === 'pending' && Date.now() - started <= 300_000 && api !== null;
  if (!batchRunning) return;
  batchTimer = window.setTimeout(async () => {
    try {
      await watchBatch(await api!.batch(batch.id), started);
    } catch (err) {
      if (!unreachable(err)) return batchError(err, '');
      // Its jobs are queued and print anyway: the last counts stay, marked as such, until the service is back.
      $('batch-status').append(staleSince());
      resumeWatch = () => void watchBatch(batch, started);
    }
  }, 1000);
}

function showBatchStatus(batch: PrintBatch): void {
  const box = $('batch-status');
  box.hidden = false;
  box.className = `job ${batch.state}`;
  const state = el('strong', { className: 'state' }, batch.state);
  state.dataset.state = batch.state;
  // The service counts cancelled jobs among the failed ones; a person reads them apart.
  const cancelled = batch.cancelled > 0 ? `, ${batch.cancelled} cancelled` : '';
  box.replaceChildren('Batch ', state, ` · ${batch.printed} of ${batch.total} printed, ${batch.pending} waiting, ${batch.failed - batch.cancelled} failed${cancelled}`);
}

// ---- start ---------------------------------------------------------------

const token = storedToken();
if (token) {
  signIn(token).catch(() => signOut());
} else {
  $<HTMLInputElement>('token').focus();
}
