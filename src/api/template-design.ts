/**
 * Saved templates between the API and the label engine: the request body
 * (LabelTemplateInput) is checked and normalised into the stored design, its
 * logo turned into 1-bit at the stock's dots, and the whole design tried on
 * every record kind before it is saved; a stored template becomes the engine's
 * Template (labels) or the API's LabelTemplate (responses). Pure apart from
 * drawing the logo (in the logo process, logo-process.ts): the mock runs the
 * same checks as the server.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { findStock, LabelFitError, layoutFor, MATRIX_SYMBOLOGIES, sameDesignForEveryKind, type LabelDesign, type LabelRecord, type Stock, type Template } from '../labels/index.js';
import { encodePng1, LogoError, logoBitmap, warmLogoProcess, type Bitmap, type CodeSpec, type TextSpec } from '../labels/index.js';
import { CodeFitError, STOCKS, type Renderer } from '../labels/index.js';
import { scanCheck } from './template-scan.js';
import { DEFAULT_LOCALE, elementAreaMm, GridError, placeOnGrid, type ElementSpec, isSupportedLocale, parsePlaceholders } from '../labels/index.js';
import { LABEL_KIND_FACTS, LABEL_KINDS, type FieldDefinition, type FieldType, type LabelKind, type SavedTemplate } from '../records/index.js';
import { HttpProblem } from './problems.js';

export type TemplateInput = components['schemas']['LabelTemplateInput'];
export type TemplateResource = components['schemas']['LabelTemplate'];
type Line = components['schemas']['TemplateLine'];
type Code = NonNullable<TemplateInput['codes']>[number];
export type Element = components['schemas']['TemplateElement'];
export type ScanCheck = components['schemas']['ScanCheck'];

/** Most saved templates a deployment keeps (the list is one bounded page). */
export const MAX_TEMPLATES = 100;

/** The design as stored and shown (defaults filled in), without the logo's picture. */
export interface StoredDesign {
  stock: string;
  lines: Line[];
  codes: Code[];
  codePosition: 'left' | 'right';
  /** Absent in templates stored before colours: black. */
  codeColour?: 'black' | 'red';
  textPt: { min: number; max: number };
  footer: string | null;
  logo: { heightMm: number } | null;
  /** What custom fields' dates and numbers are written in; absent in templates stored before fields: DEFAULT_LOCALE. */
  locale?: string;
  /** An element design (docs/labels-and-templates.md "Element designs"): lines, codes and textPt are then unused. */
  elements?: Element[];
  /** The rows and columns elements with a `cell` are placed in (elements.ts placeOnGrid sizes them on the stock). */
  grid?: components['schemas']['ElementGrid'];
  /** The codes' scan check at save (template-scan.ts); absent in templates stored before it. */
  scanCheck?: ScanCheck;
}

const DEFAULT_LINES: Line[] = [{ field: 'name' }, { field: 'path' }];
/** What a custom line's `{...}` may name (the spec's TemplateLine.text). */
const PLACEHOLDERS = ['name', 'assetId', 'path', 'id', 'kind', 'description'];
/** P-touch Editor's auto-fit range, as the built-in designs use. */
const DEFAULT_TEXT_PT = { min: 7, max: 36 };

function invalidAt(pointer: string, detail: string): HttpProblem {
  return new HttpProblem('invalid-template', `${pointer}: ${detail}.`);
}

/**
 * The body as a stored design and its logo, or a 422 naming the field. Tries the
 * design on each record kind with a typical record, so a design that cannot fit
 * its stock is refused here rather than at the first label.
 */
export async function compileTemplate(input: TemplateInput, at = '', catalogue: readonly FieldDefinition[] = []): Promise<{ design: StoredDesign; logo: Bitmap | null }> {
  // `at`: where the design sits in the body (previewLabelTemplate's `/design`), so pointers name the field.
  const invalid = (pointer: string, detail: string) => invalidAt(at + pointer, detail);
  warmLogoProcess();
  const stock = findStock(input.stock);
  if (!stock) throw invalid('/stock', `no label stock is named ${input.stock} (see the Template schema for the stock names)`);
  if (input.elements) {
    // An element design places its own text and codes: the line design's members would be ignored, so they are refused.
    for (const member of ['lines', 'codes', 'codePosition', 'codeColour', 'textPt'] as const) {
      if (input[member] !== undefined) throw invalid(`/${member}`, `an element design (elements) places its own text and codes; leave ${member} out`);
    }
    // Cells to boxes on this stock first: a cell outside the grid, or tracks that do not fit, are refused where they are.
    try {
      placeOnGrid(input.elements, input.grid, stock);
    } catch (err) {
      if (err instanceof GridError) throw invalid(err.pointer, err.message);
      throw err;
    }
    checkElements(input.elements, stock, input.logo !== undefined, catalogue, (pointer, detail) => invalid(`/elements${pointer}`, detail));
  } else if (input.grid) throw invalid('/grid', 'a grid places elements (elements with a cell); a line design has none');
  const lines = input.lines ?? DEFAULT_LINES;
  lines.forEach((line, i) => {
    if (line.field === 'custom' && line.text === undefined) throw invalid(`/lines/${i}/text`, 'a custom line needs its text');
    // A misspelt placeholder ({nmae}) or an undeclared field would print literally on every label: refused here.
    if (line.field === 'custom') {
      const problem = placeholderProblem(line.text ?? '', catalogue);
      if (problem) throw invalid(`/lines/${i}/text`, problem);
    }
    if (line.field !== 'custom' && line.text !== undefined) throw invalid(`/lines/${i}/text`, `only custom lines have text (this line shows the record's ${line.field})`);
  });
  const codes = input.codes ?? [stock.code2d];
  // One 2D code per label, whichever symbologies are 2D (symbols.ts SYMBOLOGIES says).
  const twoD = MATRIX_SYMBOLOGIES.filter((s) => codes.includes(s));
  if (twoD.length > 1) throw invalid('/codes', `a label carries one 2D code: ${twoD.join(' or ')}, not both`);
  if (input.locale !== undefined && !isSupportedLocale(input.locale)) throw invalid('/locale', `the server cannot write dates and numbers in ${input.locale} (a BCP 47 language tag it knows, e.g. en-GB, de-DE)`);
  const textPt = input.textPt ?? DEFAULT_TEXT_PT;
  if (textPt.min > textPt.max) throw invalid('/textPt/min', `the smallest text size (${textPt.min} pt) is larger than the largest (${textPt.max} pt)`);
  let logo: Bitmap | null = null;
  if (input.logo) {
    const data = Buffer.from(input.logo.image, 'base64');
    // Node's decoder skips what is not base64; a strict round trip catches truncated or padded-wrong input.
    if (data.toString('base64') !== input.logo.image) throw invalid('/logo/image', 'not valid base64');
    const design = designSize(stock);
    try {
      logo = await logoBitmap(data, (input.logo.heightMm / 25.4) * stock.dpi, Math.floor(design.long / 2));
    } catch (err) {
      // The logo's fault, said where it is in the body.
      if (err instanceof LogoError) throw invalid('/logo/image', err.message);
      throw err;
    }
  }
  const design: StoredDesign = {
    stock: input.stock,
    lines,
    codes,
    codePosition: input.codePosition ?? 'left',
    codeColour: input.codeColour ?? 'black',
    textPt,
    footer: input.footer ?? null,
    logo: input.logo ? { heightMm: input.logo.heightMm } : null,
    ...(input.locale !== undefined ? { locale: Intl.getCanonicalLocales(input.locale)[0]! } : {}),
    ...(input.elements ? { elements: input.elements } : {}),
    ...(input.elements && input.grid ? { grid: input.grid } : {}),
  };
  tryOnEveryKind(stock, design, logo, at, catalogue);
  return { design, logo };
}

/** Width and height the design is laid out in (tall narrow stock is designed across its long side). */
function designSize(stock: Stock): { long: number; short: number } {
  const length = stock.lengthDots ?? stock.minLengthDots;
  return { long: Math.max(stock.widthDots, length), short: Math.min(stock.widthDots, length) };
}

const SAMPLE_ID = '3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30';
/** A typical record of each kind: a UUID URL of a usual length, a three-level path, a 6-digit asset id. */
function sampleRecord(kind: LabelKind, catalogue: readonly FieldDefinition[]): LabelRecord {
  const { byAssetId, frontEndSegment } = LABEL_KIND_FACTS[kind];
  const url = `https://inventory.example.com/${frontEndSegment}/${byAssetId ? '000-001' : SAMPLE_ID}`;
  const fields = Object.fromEntries(catalogue.map((f) => [f.name, SAMPLE_VALUES[f.type]]));
  return { kind, id: SAMPLE_ID, name: 'Cordless drill', path: ['Home', 'Garage', 'Shelf 3'], assetId: byAssetId ? 1 : undefined, url, description: '18 V, two batteries', fields };
}

/** A typical value of each field type, for trying a design. */
const SAMPLE_VALUES: Record<FieldType, string | number> = { text: 'SN-4711-0815', number: 12.5, date: '2026-12-01', url: 'https://example.com/manual' };

/**
 * What is wrong with a custom line's placeholders, or undefined: each names a built-in
 * value ({name}) or a declared field ({best_before}), with a format that fits its type
 * (date:... for a date field, number[:N] for a number field; none for the built-ins).
 */
function placeholderProblem(text: string, catalogue: readonly FieldDefinition[], extra: readonly string[] = []): string | undefined {
  const fields = new Map(catalogue.map((f) => [f.name, f]));
  const builtIn = [...PLACEHOLDERS, ...extra];
  const known = () => [...builtIn, ...fields.keys()].map((p) => `{${p}}`).join(', ');
  for (const p of parsePlaceholders(text)) {
    if ('problem' in p) return `placeholder ${p.text}: ${p.problem}`;
    const field = fields.get(p.name);
    // {today} takes a date format, {counter} a number format, as a custom field of that type would.
    if (p.name === 'today' && extra.includes('today')) {
      if (p.format && p.format.kind !== 'date') return `placeholder ${p.text}: {today} is a date; a ${p.format.kind} format is for ${p.format.kind} fields`;
      continue;
    }
    if (p.name === 'counter' && extra.includes('counter')) {
      if (p.format && p.format.kind !== 'number') return `placeholder ${p.text}: {counter} is a number; a ${p.format.kind} format is for ${p.format.kind} fields`;
      continue;
    }
    if (builtIn.includes(p.name)) {
      if (p.format) return `placeholder ${p.text}: {${p.name}} takes no format (formats are for custom date and number fields)`;
      continue;
    }
    if (!field) {
      // The same words whether or not fields are declared; the catalogue's fields are listed with the built-ins.
      const none = catalogue.length === 0 ? '; no custom fields are declared (FIELDS_FILE)' : '';
      return `unknown placeholder {${p.name}} (placeholders: ${known()}${none})`;
    }
    if (p.format && p.format.kind !== field.type) return `placeholder ${p.text}: ${field.name} is a ${field.type} field; a ${p.format.kind} format is for ${p.format.kind} fields`;
  }
  return undefined;
}

/** Placeholders elements may name besides a custom line's: the date the label is drawn and its place in a batch. */
const ELEMENT_PLACEHOLDERS = ['today', 'counter'];

/**
 * Each element's box within the printable area (in mm, the design's orientation), its text's
 * placeholders known, its size range in order, an image only with a logo to show.
 */
function checkElements(elements: readonly Element[], stock: Stock, hasLogo: boolean, catalogue: readonly FieldDefinition[], invalid: (pointer: string, detail: string) => HttpProblem): void {
  const { width: wMm, height: hMm } = elementAreaMm(stock);
  elements.forEach((el, i) => {
    // A cell's box lies within the printable area by construction (placeOnGrid, checked before).
    if (el.box) {
      const { x, y, width, height } = el.box;
      if (x + width > wMm + 0.05 || y + height > hMm + 0.05)
        throw invalid(`/${i}/box`, `the box (x ${x}, y ${y}, ${width} x ${height} mm) reaches outside the printable area of ${stock.name} (${wMm} x ${hMm} mm)`);
    }
    if (el.type === 'text') {
      const problem = placeholderProblem(el.text, catalogue, ELEMENT_PLACEHOLDERS);
      if (problem) throw invalid(`/${i}/text`, problem);
      if (el.pt && el.pt.min > el.pt.max) throw invalid(`/${i}/pt/min`, `the smallest text size (${el.pt.min} pt) is larger than the largest (${el.pt.max} pt)`);
    }
    if (el.type === 'code' && el.data !== undefined) {
      const problem = placeholderProblem(el.data, catalogue, ['url', 'assetDigits']);
      if (problem) throw invalid(`/${i}/data`, problem);
    }
    if (el.type === 'image' && !hasLogo) throw invalid(`/${i}`, 'an image element shows the template\'s logo: the design has no logo');
  });
}

function tryOnEveryKind(stock: Stock, design: StoredDesign, logo: Bitmap | null, at: string, catalogue: readonly FieldDefinition[]): void {
  const template = engineTemplate('candidate', stock, design, logo, 'candidate');
  for (const kind of LABEL_KINDS) {
    try {
      layoutFor(sampleRecord(kind, catalogue), template, { footer: undefined });
    } catch (err) {
      if (err instanceof CodeFitError) {
        const fitsOn = stocksHolding(design, logo, kind, catalogue);
        const where = fitsOn.length ? `; its box holds it on ${fitsOn.slice(0, 8).join(', ')}${fitsOn.length > 8 ? ', …' : ''}` : '; no stock holds it in that box: make the box larger';
        throw new HttpProblem('invalid-template', `${at}/elements/${err.element}: ${err.message.replace(/^element \d+: /, '')} (${kind} label)${where}.`, {}, { fitsOn });
      }
      if (!(err instanceof LabelFitError)) throw err;
      const pointer = /logo/.test(err.message) ? '/logo/heightMm' : /^text/.test(err.message) ? '/textPt/min' : /code|QR|DataMatrix/i.test(err.message) ? '/codes' : '/stock';
      throw invalidAt(at + pointer, `${err.message} (${kind} label)`);
    }
  }
}

/** The stocks (canonical names) on which the element design's boxes lie and its codes fit them, for the record kind. */
function stocksHolding(design: StoredDesign, logo: Bitmap | null, kind: LabelKind, catalogue: readonly FieldDefinition[]): string[] {
  return STOCKS.filter((stock) => {
    const area = elementAreaMm(stock);
    let placed;
    try {
      placed = placeOnGrid(design.elements ?? [], design.grid, stock);
    } catch (err) {
      if (err instanceof GridError) return false;
      throw err;
    }
    if (!placed.every((el) => el.box.x + el.box.width <= area.width + 0.05 && el.box.y + el.box.height <= area.height + 0.05)) return false;
    try {
      layoutFor(sampleRecord(kind, catalogue), engineTemplate('candidate', stock, design, logo, 'candidate'));
      return true;
    } catch (err) {
      if (err instanceof LabelFitError) return false;
      throw err;
    }
  }).map((s) => s.name);
}

/** The design with its scan check (template-scan.ts): every code on a sample label of each kind, damaged and read. */
export async function withScanCheck(
  renderer: Pick<Renderer, 'scan'>,
  design: StoredDesign,
  logo: Bitmap | null,
  catalogue: readonly FieldDefinition[],
  now: Date,
): Promise<StoredDesign> {
  const stock = findStock(design.stock)!;
  const template = engineTemplate('candidate', stock, design, logo, 'candidate');
  return { ...design, scanCheck: await scanCheck(renderer, template, LABEL_KINDS.map((k) => sampleRecord(k, catalogue)), design, now) };
}

// A red mark on a stock without red is drawn black with the warning 'red-as-black' (content.ts), not
// refused here: a template keeps its design when its stock changes, and its preview shows the result.
function textSpecs(lines: readonly Line[]): TextSpec[] {
  return lines.map((line, i) => ({
    role: i === 0 ? 'title' : 'line',
    ...(line.colour === 'red' ? { colour: 'red' as const } : {}),
    source:
      line.field === 'custom'
        ? { field: 'custom', text: line.text ?? '' }
        : line.field === 'assetId'
          ? { field: 'custom', text: '{assetId}' }
          : { field: line.field },
  }));
}

function codeSpecs(codes: readonly Code[], colour: StoredDesign['codeColour']): CodeSpec[] {
  const ink = colour === 'red' ? { colour: 'red' as const } : {};
  return codes.map((code) => (code === 'code128' ? { symbology: 'code128', data: '{assetDigits}', caption: '{assetId}', ...ink } : { symbology: code, data: '{url}', ...ink }));
}

/** The engine's template for a stored design: one design for every kind of label. */
export function engineTemplate(name: string, stock: Stock, design: StoredDesign, logo: Bitmap | null, revision: string): Template {
  const labelDesign: LabelDesign = {
    text: textSpecs(design.lines),
    codes: codeSpecs(design.codes, design.codeColour),
    textPt: design.textPt,
    footer: design.footer ?? undefined,
    codePosition: design.codePosition,
    logo: logo ?? undefined,
    ...(design.locale ? { locale: design.locale } : {}),
    // The spec's TemplateElement is the engine's ElementSpec (rotation checked as 0 to 3 by the request validator), a cell made its box on this stock.
    ...(design.elements ? { elements: placeOnGrid(design.elements, design.grid, stock) as ElementSpec[] } : {}),
  };
  return { name, stock, designs: sameDesignForEveryKind(labelDesign), revision };
}

/** A stored template as the engine draws it. */
export function savedEngineTemplate(saved: SavedTemplate): Template {
  const design = JSON.parse(saved.design) as StoredDesign;
  const stock = findStock(design.stock);
  if (!stock) throw new Error(`saved template ${saved.name} names an unknown stock ${design.stock}`);
  return engineTemplate(saved.name, stock, design, saved.logo, saved.etag);
}

/** A stored template as the API shows it. */
export function templateResource(saved: SavedTemplate): TemplateResource {
  const design = JSON.parse(saved.design) as StoredDesign;
  const dpi = findStock(design.stock)?.dpi;
  const logo =
    saved.logo && design.logo
      ? { heightMm: design.logo.heightMm, width: saved.logo.width, height: saved.logo.height, png: encodePng1(Buffer.from(saved.logo.rows), saved.logo.width, saved.logo.height, dpi).toString('base64') }
      : null;
  return {
    name: saved.name,
    stock: design.stock,
    lines: design.lines,
    codes: design.codes,
    codePosition: design.codePosition,
    codeColour: design.codeColour ?? 'black',
    textPt: design.textPt,
    footer: design.footer,
    logo,
    locale: design.locale ?? DEFAULT_LOCALE,
    ...(design.elements ? { elements: design.elements } : {}),
    ...(design.grid ? { grid: design.grid } : {}),
    ...(design.scanCheck ? { scanCheck: design.scanCheck } : {}),
    createdAt: saved.createdAt,
    updatedAt: saved.updatedAt,
  };
}

/**
 * A stored template as a file (exportLabelTemplate): the putLabelTemplate body that saves it again,
 * its logo the stored 1-bit PNG at the stored height (a PNG logo at the same dpi is drawn dot for dot).
 */
export function templateFile(saved: SavedTemplate): TemplateInput {
  const resource = templateResource(saved);
  const design = JSON.parse(saved.design) as StoredDesign;
  return {
    stock: resource.stock,
    ...(design.elements ? { elements: design.elements, ...(design.grid ? { grid: design.grid } : {}) } : { lines: resource.lines, codes: resource.codes, codePosition: resource.codePosition, codeColour: resource.codeColour, textPt: resource.textPt }),
    ...(resource.footer !== null ? { footer: resource.footer } : {}),
    ...(resource.logo ? { logo: { image: resource.logo.png, heightMm: resource.logo.heightMm } } : {}),
    ...(design.locale ? { locale: design.locale } : {}),
  };
}

/** A new stored template: its ETag is a digest of everything it holds, the time of the write included. */
export function toSaved(name: string, design: StoredDesign, logo: Bitmap | null, createdAt: string, updatedAt: string): SavedTemplate {
  const json = JSON.stringify(design);
  const rows = logo ? Buffer.from(logo.rows) : null;
  const hash = createHash('sha256').update(name).update('\0').update(json).update('\0').update(rows ?? '').update('\0').update(updatedAt);
  return {
    name,
    design: json,
    logo: logo && rows ? { width: logo.width, height: logo.height, rows } : null,
    etag: `"${hash.digest('base64url').slice(0, 27)}"`,
    createdAt,
    updatedAt,
  };
}
