/**
 * An uploaded SVG logo rebuilt from an allow-list: the upload is parsed as XML
 * (sax, strict), and only known shape, grouping, gradient, clip and mask
 * elements with known attributes are written out again, escaped, as a new SVG.
 * librsvg only ever sees that rewrite, so nothing the parse did not understand
 * (a DOCTYPE, a CSS escape such as `u\72l(`, `@\69mport`, a link, text) can
 * reach it. Refused outright: elements outside the list that draw or reach out
 * (text, images, scripts, foreign content, filters, patterns, markers), links
 * other than `#id`, url() other than `url(#id)`, CSS escapes and at-rules.
 * Editors' metadata (other namespaces, title, desc, metadata) is dropped.
 *
 * The work is bounded before anything is drawn: at most MAX_ELEMENTS elements,
 * MAX_DEPTH deep, and MAX_DRAWN elements once every `<use>`, clip-path and mask
 * reference is expanded (a `<use>` fan-out multiplies at each level).
 * Text is refused because librsvg lays out a run without spaces in about
 * quadratic time (30,000 characters: 7 s).
 */
import sax, { type QualifiedTag } from 'sax';

export const SVG_MAX_ELEMENTS = 10_000;
export const SVG_MAX_DEPTH = 64;
export const SVG_MAX_DRAWN = 20_000;

/** The SVG cannot be accepted; the message says why, for the client (logo.ts makes it a LogoError). */
export class SvgError extends Error {
  override name = 'SvgError';
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'symbol', 'use',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'style',
]);
/** Editors' notes: dropped with their content. */
const DROPPED = new Set(['title', 'desc', 'metadata']);
/** Why an element is refused, where a hint helps. */
const REFUSED_BECAUSE: Record<string, string> = {
  text: 'text: convert it to paths',
  tspan: 'text: convert it to paths',
  textPath: 'text: convert it to paths',
  image: 'an image: only shapes are accepted',
  feImage: 'an image: only shapes are accepted',
  script: 'a script',
  foreignObject: 'foreign content',
};

/** CSS properties (and the same-named presentation attributes) kept; others are dropped. */
const PAINT = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap',
  'stroke-linejoin', 'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'opacity', 'display',
  'visibility', 'clip-path', 'clip-rule', 'mask', 'stop-color', 'stop-opacity', 'color', 'overflow', 'paint-order',
]);
/** Geometry and structure attributes kept (values are plain numbers, lists, path data or names). */
const GEOMETRY = new Set([
  'id', 'class', 'transform', 'x', 'y', 'width', 'height', 'rx', 'ry', 'cx', 'cy', 'r', 'fx', 'fy', 'fr',
  'x1', 'y1', 'x2', 'y2', 'd', 'points', 'pathLength', 'viewBox', 'preserveAspectRatio', 'offset',
  'gradientUnits', 'gradientTransform', 'spreadMethod', 'clipPathUnits', 'maskUnits', 'maskContentUnits',
]);

/** A CSS value: words, numbers, colours, lists and functions such as rgb() and url(#id); no escapes, quotes, comments or at-rules. */
const CSS_VALUE = /^[\w\s#%.,+()-]*$/;
const URL_REF = /url\(\s*#([\w.:-]+)\s*\)/g;
/** A CSS selector list of element, class and id selectors with combinators. */
const CSS_SELECTOR = /^[\w\s.#,*>+~:-]+$/;

interface Node {
  name: string;
  attrs: [string, string][];
  children: Node[];
  /** Ids this element draws again: its `<use>` target, clip paths and masks. */
  refs: string[];
  /** Text of a `<style>` element (already rewritten). */
  css?: string;
}

export interface SanitizedSvg {
  /** Width over height of the picture. */
  aspect: number;
  /** The rewritten SVG drawn exactly `width` x `height` pixels. */
  markup(width: number, height: number): string;
}

const refuse = (what: string): never => {
  throw new SvgError(`the SVG contains ${what}`);
};

/** Declarations of a style attribute or rule: kept properties only, each value checked; url(#id) targets into `refs`. */
function cleanDeclarations(text: string, refs: string[]): string {
  const out: string[] = [];
  for (const decl of text.split(';')) {
    if (!decl.trim()) continue;
    const colon = decl.indexOf(':');
    const prop = (colon < 0 ? decl : decl.slice(0, colon)).trim().toLowerCase();
    if (colon < 0 || !/^-?[a-z][a-z-]*$/.test(prop)) {
      if (/[\\@]/.test(decl)) refuse('a CSS escape or at-rule');
      refuse(`CSS it cannot read (${JSON.stringify(decl.trim().slice(0, 40))})`);
    }
    if (!PAINT.has(prop)) continue;
    out.push(`${prop}:${cleanValue(prop, decl.slice(colon + 1), refs)}`);
  }
  return out.join(';');
}

function cleanValue(prop: string, raw: string, refs: string[]): string {
  const value = raw.trim();
  if (/[\\@]/.test(value)) refuse('a CSS escape or at-rule');
  if (/url\(/i.test(value.replace(URL_REF, ''))) refuse('a url() outside the SVG (only url(#id) is allowed)');
  if (!CSS_VALUE.test(value)) refuse(`a ${prop} value it does not accept (${JSON.stringify(value.slice(0, 40))})`);
  const targets = [...value.matchAll(URL_REF)].map((m) => m[1]!);
  refs.push(...targets);
  return value;
}

/** A `<style>` element: rules of simple selectors and kept declarations; url(#id) may only name gradients (checked later). */
function cleanStylesheet(text: string, styleRefs: string[]): string {
  const css = text.replace(/\/\*[\s\S]*?\*\//g, ' ');
  if (/[\\@]/.test(css)) refuse('a CSS escape or at-rule');
  const rules: string[] = [];
  const rest = css.replace(/([^{}]*)\{([^{}]*)\}/g, (_all, selector: string, body: string) => {
    const sel = selector.trim();
    if (!CSS_SELECTOR.test(sel)) refuse(`a CSS selector it does not accept (${JSON.stringify(sel.slice(0, 40))})`);
    rules.push(`${sel}{${cleanDeclarations(body, styleRefs)}}`);
    return '';
  });
  if (rest.trim()) refuse(`CSS it cannot read (${JSON.stringify(rest.trim().slice(0, 40))})`);
  return rules.join('\n');
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A length in px (absolute units only), or undefined. */
function lengthPx(value: string | undefined): number | undefined {
  const m = /^\s*(\+?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*$/i.exec(value ?? '');
  if (!m) return undefined;
  const perUnit: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96 };
  const px = Number(m[1]) * perUnit[(m[2] ?? 'px').toLowerCase()]!;
  return Number.isFinite(px) && px > 0 ? px : undefined;
}

function viewBoxOf(value: string | undefined): number[] | undefined {
  const n = (value ?? '').trim().split(/[\s,]+/).map(Number);
  return n.length === 4 && n.every(Number.isFinite) && n[2]! > 0 && n[3]! > 0 ? n : undefined;
}

export function sanitizeSvg(data: Buffer | string): SanitizedSvg {
  const parser = sax.parser(true, { xmlns: true, position: false });
  const stack: (Node | null)[] = []; // null: inside a dropped element
  let root: Node | undefined;
  let elements = 0;
  const ids = new Map<string, Node>();
  const styleRefs: string[] = [];
  let styleText: string | undefined;

  parser.ondoctype = () => refuse('a DOCTYPE or entity declaration');
  parser.onopentag = (tag: QualifiedTag) => {
    if (++elements > SVG_MAX_ELEMENTS) throw new SvgError(`the SVG has more than ${SVG_MAX_ELEMENTS} elements`);
    if (stack.length >= SVG_MAX_DEPTH) throw new SvgError(`the SVG nests elements more than ${SVG_MAX_DEPTH} deep`);
    const parent = stack.at(-1);
    const isSvg = tag.uri === SVG_NS || (tag.uri === '' && tag.prefix === '');
    if (parent === null || (stack.length > 0 && (!isSvg || DROPPED.has(tag.local)))) {
      stack.push(null);
      return;
    }
    if (!isSvg) refuse(`a <${tag.name}> root element (not SVG)`);
    if (stack.length === 0 && tag.local !== 'svg') refuse(`a <${tag.local}> root element (not <svg>)`);
    if (!ELEMENTS.has(tag.local)) refuse(`a <${tag.local}> element (${REFUSED_BECAUSE[tag.local] ?? 'only shapes, groups, gradients, clip paths and masks are accepted'})`);
    const node: Node = { name: tag.local, attrs: [], children: [], refs: [] };
    for (const attr of Object.values(tag.attributes)) {
      const { local, uri, value } = attr;
      if (local === 'href' && (uri === '' || uri === XLINK_NS)) {
        if (!/^#[^\s#]+$/.test(value.trim())) refuse('a link to something outside the SVG (only #fragment links are allowed)');
        node.attrs.push(['xlink:href', value.trim()]);
        // A gradient's link names a gradient it inherits from; it does not draw it again.
        if (tag.local !== 'linearGradient' && tag.local !== 'radialGradient') node.refs.push(value.trim().slice(1));
      } else if (uri === '' && attr.prefix === '') {
        if (local === 'src') refuse('an external source');
        if (local === 'style') {
          const css = cleanDeclarations(value, node.refs);
          if (css) node.attrs.push(['style', css]);
        } else if (PAINT.has(local)) {
          node.attrs.push([local, cleanValue(local, value, node.refs)]);
        } else if (local === 'id') {
          // A repeated id is dropped: a reference then reaches the element counted below, whichever one librsvg would pick.
          if (!ids.has(value)) {
            ids.set(value, node);
            node.attrs.push([local, value]);
          }
        } else if (GEOMETRY.has(local)) {
          node.attrs.push([local, value]);
        }
      } else if (attr.prefix === 'xml' && attr.local === 'base') {
        refuse('an external source');
      }
      // Anything else (event handlers, other namespaces' attributes, xml:space) is dropped.
    }
    if (parent) parent.children.push(node);
    else root = node;
    if (node.name === 'style') styleText = '';
    stack.push(node);
  };
  parser.onclosetag = () => {
    const node = stack.pop();
    if (node?.name === 'style') {
      node.css = cleanStylesheet(styleText ?? '', styleRefs);
      styleText = undefined;
    }
  };
  const onText = (t: string) => {
    if (styleText !== undefined && stack.at(-1)?.name === 'style') styleText += t;
  };
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onerror = (err: Error) => {
    throw new SvgError(`the SVG is not well-formed XML (${err.message.split('\n')[0]})`);
  };
  try {
    parser.write(typeof data === 'string' ? data : data.toString('utf8')).close();
  } catch (err) {
    if (err instanceof SvgError) throw err;
    throw new SvgError(`the SVG is not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
  if (!root) throw new SvgError('the SVG has no <svg> element');

  for (const id of styleRefs) {
    const target = ids.get(id);
    if (target && target.name !== 'linearGradient' && target.name !== 'radialGradient') refuse(`a <style> rule that draws #${id} (a ${target.name}); give the element a clip-path or mask attribute instead`);
  }
  drawnCount(root, ids);

  const attr = (name: string) => root!.attrs.find(([k]) => k === name)?.[1];
  const viewBox = viewBoxOf(attr('viewBox'));
  const w = lengthPx(attr('width'));
  const h = lengthPx(attr('height'));
  const size = w !== undefined && h !== undefined ? { w, h } : viewBox ? { w: viewBox[2]!, h: viewBox[3]! } : undefined;
  if (!size) throw new SvgError('the SVG needs width and height attributes (absolute lengths) or a viewBox');
  const box = viewBox ? viewBox.join(' ') : `0 0 ${size.w} ${size.h}`;
  const rest = root.attrs.filter(([k]) => k !== 'width' && k !== 'height' && k !== 'viewBox');
  const top = root;
  return {
    aspect: size.w / size.h,
    markup(width, height) {
      const open = `<svg xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}" width="${width}" height="${height}" viewBox="${escapeXml(box)}"${attrsXml(rest)}>`;
      return `${open}${top.children.map(serialize).join('')}</svg>`;
    },
  };
}

const attrsXml = (attrs: [string, string][]) => attrs.map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join('');

function serialize(node: Node): string {
  const inner = node.css !== undefined ? escapeXml(node.css) : node.children.map(serialize).join('');
  return `<${node.name}${attrsXml(node.attrs)}>${inner}</${node.name}>`;
}

/**
 * Elements drawn once every reference is expanded (a `<use>` of a group draws the
 * group again; so does each clip-path or mask reference), refused above SVG_MAX_DRAWN
 * or when references loop. Gradients count once: their stops are not drawn again.
 */
function drawnCount(root: Node, ids: Map<string, Node>): number {
  const memo = new Map<Node, number>();
  const active = new Set<Node>();
  // Iterative post-order walk: a reference chain may be as long as the element list.
  const cost = (start: Node): number => {
    const work: { node: Node; phase: 0 | 1 }[] = [{ node: start, phase: 0 }];
    while (work.length) {
      const { node, phase } = work.pop()!;
      if (memo.has(node)) continue;
      const deps = [...node.children, ...node.refs.map((id) => ids.get(id)).filter((n): n is Node => n !== undefined)];
      if (phase === 0) {
        if (active.has(node)) refuse('a reference loop (an element that uses itself)');
        active.add(node);
        work.push({ node, phase: 1 });
        for (const d of deps) if (!memo.has(d)) {
          if (active.has(d)) refuse('a reference loop (an element that uses itself)');
          work.push({ node: d, phase: 0 });
        }
        continue;
      }
      let n = 1;
      for (const d of deps) n += d.name === 'linearGradient' || d.name === 'radialGradient' ? 1 : memo.get(d)!;
      if (n > SVG_MAX_DRAWN) throw new SvgError(`the SVG draws more than ${SVG_MAX_DRAWN} elements once its <use> and clip-path/mask references are expanded`);
      memo.set(node, n);
      active.delete(node);
    }
    return memo.get(start)!;
  };
  return cost(root);
}
