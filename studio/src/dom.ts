/** The two DOM helpers every studio module uses: find by id, make an element. */
export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] => {
  const node: HTMLElementTagNameMap[K] = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};
