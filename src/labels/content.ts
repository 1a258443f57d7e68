/**
 * What goes on a label: a design applied to a record. Pure: the API gathers
 * the record, this decides the words and the codes' data, layout.ts places
 * them. The linear code is encoded here, once; the 2D code's error-correction
 * level depends on the room the layout finds, so layout encodes it (once per
 * level it considers, through symbols.ts).
 */
import { formatAssetId } from '../records/asset-id.js';
import { resolveElement, type ResolvedElement } from './elements.js';
import type { LabelKind } from '../records/kinds.js';
import { formatValue, isDateValue, parsePlaceholders, type Placeholder } from './placeholders.js';
import { largestTextPt, type Bitmap, type LabelDesign, type LabelRecord, type TextField } from './design.js';
import { printsRed, type Stock } from './stock.js';
import { SYMBOLOGIES, isMatrixSymbology, type BarsSymbol, type MatrixSymbologyName } from './symbols.js';

export interface ContentBlock {
  role: 'title' | 'line';
  text: string;
  /** A location path's names: wrapped only between them, first and last kept when cut. */
  segments?: readonly string[];
  /** An identifier (the asset id as the title): wrapped at its dashes, never shortened. */
  whole?: true;
  /** Printed whole or the label warns with this word (TextSpec.keep). */
  keep?: string;
  /** Drawn in the red plane (TextSpec.colour, on a stock that prints red). */
  red?: true;
}

export interface LabelContent {
  kind: LabelKind;
  /** Text in order of importance. */
  blocks: ContentBlock[];
  /**
   * `smaller`: the stock's choice (a design's 'stock-2d'), so a DataMatrix, smaller for the
   * same data, may replace the QR code where the QR code leaves no room for a line of title
   * (a location's or item's long URL on 23 mm stock; an asset id drawn whole in two lines).
   */
  code2d?: { symbology: MatrixSymbologyName; data: string; smaller?: MatrixSymbologyName; red?: true };
  code1d?: BarsSymbol;
  /** The linear code and its caption are drawn in the red plane (CodeSpec.colour). */
  code1dRed?: true;
  /** The linear code may not be left out for lack of room (a design's `text` code): the label is refused instead. */
  code1dRequired?: boolean;
  /** The linear code is drawn only with 4-dot bars across the print head (CodeSpec.sturdy). */
  code1dSturdy?: boolean;
  footer?: string;
  /**
   * Text size bounds (pt). `grownFrom`: the design's own max where max grew with the stock
   * (LabelDesign.growWithStock): secondary lines stay at most the size they have under it.
   */
  textPt: { min: number; max: number; grownFrom?: number };
  codePosition: 'left' | 'right';
  logo?: Bitmap;
  /** What the reader of the label should know was changed (see RenderedLabel.warnings). */
  warnings: string[];
  /** Continuous tape: the shortest length that holds everything (LabelDesign.shortest). */
  shortest?: true;
  /** An element design's elements with the record's values (LabelDesign.elements): laid out by elements.ts. */
  elements?: ResolvedElement[];
}

/** Separator between a path's locations. */
export const PATH_SEPARATOR = ' › ';
/** Shown instead of a name with no visible character (never a label without a name). */
export const NO_NAME = '[no name]';

/** True when the text has something a person can see (not only spaces, controls or zero-width characters). */
export function hasVisibleText(text: string): boolean {
  return /[\p{L}\p{N}\p{P}\p{S}\p{M}]/u.test(text.replace(/\p{Default_Ignorable_Code_Point}/gu, ''));
}

/** One line: controls and line breaks become spaces, runs of spaces one. */
function clean(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
}

export function resolveContent(record: LabelRecord, design: LabelDesign, stock: Stock, opts: { footer?: string; today?: Date } = {}): LabelContent {
  const warnings: string[] = [];
  let name = clean(record.name);
  if (!hasVisibleText(name)) {
    name = NO_NAME;
    warnings.push('name-not-visible');
  }
  const path = record.path.map(clean).filter((s) => s !== '').map((s) => (hasVisibleText(s) ? s : NO_NAME));
  const assetId = record.assetId === undefined ? '' : formatAssetId(record.assetId);
  const values: Record<string, string> = {
    name,
    id: record.id,
    kind: record.kind,
    assetId,
    assetDigits: assetId.replaceAll('-', ''),
    url: record.url,
    path: path.join(PATH_SEPARATOR),
    description: clean(record.description ?? ''),
  };
  const fields: Readonly<Record<string, string | number>> = design.elements
    ? // An element's {today} and {counter}: formatted as a date and a number field's values are.
      { today: record.today ?? (opts.today ?? new Date()).toISOString().slice(0, 10), counter: record.counter ?? 1, ...record.fields }
    : (record.fields ?? {});
  // `{name}` and `{best_before|date:short}`: the record's own values, then its custom fields, formatted.
  const valueOf = (p: Placeholder): string | undefined => {
    const own = values[p.name];
    if (own !== undefined && !p.format) return own;
    const v = Object.hasOwn(fields, p.name) ? fields[p.name] : undefined;
    return v === undefined ? undefined : clean(formatValue(v, p.format, design.locale));
  };
  const fill = (text: string) => text.replace(/\{[^{}]*\}/g, (m) => {
    const [p] = parsePlaceholders(m);
    return p && 'name' in p ? (valueOf(p) ?? m) : m;
  });
  /** Whether a placeholder has nothing to show for this record (the line is then left out). */
  const isEmpty = (p: Placeholder) => {
    const v = valueOf(p);
    return v === undefined || v === '';
  };
  /** A custom line showing a date (best before, warranty until) is printed whole or warns text-shortened. */
  const showsDate = (text: string) => parsePlaceholders(text).some((p) => 'name' in p && values[p.name] === undefined && isDateValue(fields[p.name]));
  // Red where the stock prints it; on any other stock the mark is drawn black and the label says so.
  const canRed = printsRed(stock);
  let redAsBlack = false;
  const red = (colour: 'red' | undefined): { red?: true } => {
    if (colour !== 'red') return {};
    if (canRed) return { red: true };
    redAsBlack = true;
    return {};
  };

  const blocks: ContentBlock[] = [];
  for (const spec of design.text) {
    const b = block(spec.source, fill, isEmpty, name, path, values.description!);
    const keep = spec.keep ?? (spec.source.field === 'custom' && showsDate(spec.source.text) ? 'text-shortened' : undefined);
    if (b.text !== '') blocks.push({ role: spec.role, ...b, ...(keep ? { keep } : {}), ...red(spec.colour) });
  }
  let code2d: LabelContent['code2d'];
  let code1d: BarsSymbol | undefined;
  let code1dRequired = false;
  let code1dSturdy = false;
  let code1dRed = false;
  for (const code of design.codes) {
    const data = fill(code.data);
    const symbology = code.symbology === 'stock-2d' ? stock.code2d : code.symbology;
    if (!isMatrixSymbology(symbology)) {
      // A code whose data is missing for this kind (no asset id on a location) is left out.
      if (data !== '' && !code1d) {
        const caption = clean(fill(code.caption ?? ''));
        code1d = SYMBOLOGIES[symbology].encode(data, caption, !code.text);
        code1dRequired = code.text === true;
        code1dSturdy = code.sturdy === true;
        code1dRed = red(code.colour).red === true;
      }
    } else if (data !== '' && !code2d) {
      // The stock's 2D code may give way to a smaller one (its QR code to a DataMatrix); one a design names may not.
      const smaller = code.symbology === 'stock-2d' ? SYMBOLOGIES[symbology].smaller : undefined;
      code2d = { symbology, data, ...(smaller ? { smaller } : {}), ...red(code.colour) };
    }
  }
  // An element's text about something the record lacks is left out, as a custom line is.
  const fillElement = (text: string) => (parsePlaceholders(text).some((p) => 'name' in p && isEmpty(p)) ? '' : clean(fill(text)));
  const elements = design.elements?.map((el) => resolveElement(el, fillElement, (colour) => red(colour === 'red' ? 'red' : undefined)));
  if (redAsBlack) warnings.push('red-as-black');
  const footer = clean(design.footer ?? opts.footer ?? '');
  return {
    kind: record.kind,
    blocks,
    code2d,
    code1d,
    ...(code1dRequired ? { code1dRequired } : {}),
    ...(code1dSturdy ? { code1dSturdy } : {}),
    ...(code1dRed ? { code1dRed: true as const } : {}),
    footer: footer || undefined,
    textPt: textPtOn(design, stock),
    codePosition: design.codePosition ?? 'left',
    logo: design.logo,
    warnings,
    ...(design.shortest ? { shortest: true as const } : {}),
    ...(elements ? { elements } : {}),
  };
}

function textPtOn(design: LabelDesign, stock: Stock): LabelContent['textPt'] {
  const max = largestTextPt(design, stock);
  return max === design.textPt.max ? design.textPt : { min: design.textPt.min, max, grownFrom: design.textPt.max };
}

function block(source: TextField, fill: (t: string) => string, isEmpty: (p: Placeholder) => boolean, name: string, path: string[], description: string): Omit<ContentBlock, 'role'> {
  switch (source.field) {
    case 'description':
      return { text: description };
    case 'name':
      return { text: name };
    case 'path':
      return { text: path.join(PATH_SEPARATOR), segments: path };
    case 'custom':
      // A line about something the record does not have ("Asset {assetId}" on a location) is left out.
      return { text: parsePlaceholders(source.text).some((p) => 'name' in p && isEmpty(p)) ? '' : clean(fill(source.text)) };
  }
}
