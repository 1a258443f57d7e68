/**
 * The designer as part of the page (tokens with templates:write): the label shown follows
 * the design while it is open, the Template list waits for it, and saving, loading and
 * deleting saved templates. The form itself is designer.ts.
 */
import { failureText, messageOf, statusOf, unreachable } from './api.js';
import { designFromForm, fillForm, formProblem, initDesigner, loadedTemplate, readableDetail, setLoaded } from './designer.js';
import { $, el } from './dom.js';
import { drawLabel, selectedRecord } from './preview.js';
import { can, signedIn } from './session.js';
import { loadTemplates, stockOf } from './template-choice.js';

let designTimer: number | undefined;
/** Whether the form differs from the template it was loaded from or saved as. */
let designDirty = false;
/** The Template choice before the designer opened: chosen again when it closes (unless a save chose another). */
let templateBeforeDesign: string | null = null;

/** Whether the label shown is the design being edited (the designer is open). */
export const designing = (): boolean => can('templates:write') && $<HTMLDetailsElement>('designer').open;

/** Whether the design is the saved template `template`, unchanged: it prints as shown. */
export const designIsSaved = (template: string): boolean => !designDirty && loadedTemplate()?.name === template;

/** A preview is being drawn now: the one scheduled is not needed. */
export const quietDesignPreview = (): void => window.clearTimeout(designTimer);

export function initDesignPanel(): void {
  initDesigner(() => scheduleDesignPreview());
  /** The name and "start from" do not change the design: no new preview for them. */
  const redraws = (e: Event) => {
    const id = (e.target as HTMLElement).id;
    if (id !== 'design-name' && id !== 'design-load') scheduleDesignPreview();
    templateFollowsDesign();
    showAssetOnlyNote();
  };
  $('design-form').addEventListener('input', redraws);
  $('design-form').addEventListener('change', redraws);
  $('designer').addEventListener('toggle', () => {
    const select = $<HTMLSelectElement>('template');
    if (designing()) {
      templateBeforeDesign = select.value;
      // A new design starts on the stock of the template chosen, not on another one under the person's eyes.
      if (!loadedTemplate() && !designDirty) $<HTMLSelectElement>('design-stock').value = stockOf(select.value);
    } else if (templateBeforeDesign !== null) {
      select.value = templateBeforeDesign;
      templateBeforeDesign = null;
    }
    templateFollowsDesign();
    showAssetOnlyNote();
    void drawLabel();
  });
  $('design-load').addEventListener('change', () => void loadDesign($<HTMLSelectElement>('design-load').value));
  $('design-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void saveDesign();
  });
  $('design-delete').addEventListener('click', () => void deleteDesign());
}

/** The preview follows the form, a moment after the person stops typing. */
function scheduleDesignPreview(): void {
  designDirty = true;
  $('design-saved').textContent = '';
  window.clearTimeout(designTimer);
  designTimer = window.setTimeout(() => void drawLabel(), 350);
}

/**
 * While the designer is open the label is drawn with the design, on its stock: the
 * Template list shows that stock (or the saved template the designer holds, unchanged)
 * and waits, disabled, with the reason beside it, instead of naming another template.
 */
export function templateFollowsDesign(): void {
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
export function showAssetOnlyNote(): void {
  const note = $('design-asset-only');
  const kind = $<HTMLSelectElement>('label-kind').value;
  const asks = $<HTMLInputElement>('design-code128').checked || designFromForm().lines?.some((l) => l.field === 'assetId' || (l.field === 'custom' && l.text?.includes('{assetId}')));
  const show = designing() && !!asks && kind !== 'asset';
  note.hidden = !show;
  if (!show) return;
  const what = kind === 'location' ? "a location's label" : 'the item label';
  const offer = selectedRecord()?.labels.asset ? el('button', { type: 'button', className: 'secondary' }, 'Show the asset label') : null;
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
export function showDesignProblem(message: string | null): void {
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

async function loadDesign(name: string): Promise<void> {
  const api = signedIn.api;
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

async function saveDesign(): Promise<void> {
  const api = signedIn.api;
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
}

async function deleteDesign(): Promise<void> {
  const api = signedIn.api;
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
}
