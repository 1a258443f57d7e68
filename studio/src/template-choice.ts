/**
 * The Template list: the service's label stocks (listStocks) and the saved templates
 * (listLabelTemplates). The preview draws the label on the choice, "Print this label"
 * and "Print all" print on it.
 */
import { $, el } from './dom.js';
import { signedIn } from './session.js';
import { allStocks, DEFAULT_STOCK } from './stocks.js';

/** Each saved template's stock, by template name (the preview draws the stock's paper around the label). */
let savedStocks = new Map<string, string>();

/** The stock a template draws on: a saved template's, else the template's own name (a stock or part number). */
export const stockOf = (template: string): string => savedStocks.get(template) ?? template;

/** The template chosen in the list. */
export const chosenTemplate = (): string => $<HTMLSelectElement>('template').value || DEFAULT_STOCK;

/** The chosen template as a person chose it from the list. */
export function templateTitle(): string {
  const option = $<HTMLSelectElement>('template').selectedOptions[0];
  const name = chosenTemplate();
  return savedStocks.has(name) ? `the saved template ${name}` : (option?.textContent ?? name);
}

/** Fills the Template list (keeping the choice where it is still offered). */
export async function loadTemplates(): Promise<void> {
  const select = $<HTMLSelectElement>('template');
  const chosen = select.value;
  // Without the service's list (an older service, or it could not be read), the default stock by its name.
  const stocks: readonly { name: string; title: string }[] = allStocks().length > 0 ? allStocks() : [{ name: DEFAULT_STOCK, title: DEFAULT_STOCK }];
  select.replaceChildren(el('optgroup', { label: 'Label stock' }, ...stocks.map((s) => el('option', { value: s.name }, s.title))));
  try {
    const saved = await signedIn.api!.savedTemplates();
    const names = saved.map((t) => t.name);
    savedStocks = new Map(saved.map((t) => [t.name, t.stock]));
    if (names.length > 0) select.prepend(el('optgroup', { label: 'Saved templates' }, ...names.map((name) => el('option', { value: name }, name))));
  } catch {
    // Saved templates are optional: the stock list still works.
  }
  const offered = (name: string) => [...select.options].some((o) => o.value === name);
  select.value = chosen && offered(chosen) ? chosen : offered(DEFAULT_STOCK) ? DEFAULT_STOCK : (stocks[0]?.name ?? '');
}
