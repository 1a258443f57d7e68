/** The DOM helpers every studio module uses: find by id, make an element, mark a button busy. */
export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] => {
  const node: HTMLElementTagNameMap[K] = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};

/**
 * A button busy with its request says so (aria-disabled) but stays enabled: disabling
 * the focused button would drop the keyboard's focus to the page body.
 */
export function busy(button: HTMLButtonElement, on: boolean): void {
  if (on) button.setAttribute('aria-disabled', 'true');
  else button.removeAttribute('aria-disabled');
}

export const isBusy = (button: HTMLButtonElement) => button.getAttribute('aria-disabled') === 'true';
