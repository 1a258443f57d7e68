/**
 * The label as data. A template (Template) is a name, a stock and a design per
 * label kind; a design (LabelDesign) says which fields appear, in which order of
 * importance, which codes carry what, and the text size bounds. The built-in
 * template of each stock is the standard design on that stock; a saved template
 * (a user's design) is a value of the same shape, so layout and painting never
 * branch on where a design came from or on the label kind.
 *
 * Words in code: `template` is always such a value, `templateName` its name (what
 * the spec's `template` parameters and fields and LABEL_TEMPLATE carry), and
 * `stockName` a stock's canonical name (what printing needs: a print job's
 * `template` field in the spec and the store holds it).
 */
import { LABEL_KINDS, type LabelKind } from '../records/kinds.js';
import type { Stock } from './stock.js';
import type { ElementSpec } from './elements.js';
import type { Symbology } from './symbols.js';
import { findStock, STOCKS, STOCK_NAMES } from './stock.js';

/** A record as a label sees it, gathered by the API from the stores. */
export interface LabelRecord {
  kind: LabelKind;
  id: string;
  name: string;
  /** Names of the locations above the record, top first ("Garage", "Shelf 3"). */
  path: readonly string[];
  /** Asset number (asset labels). */
  assetId?: number;
  /** Public URL of the record in the inventory front-end. */
  url: string;
  /** The record's description (shown only by designs that ask for it). */
  description?: string;
  /** The label's place in its sheet or batch, from 1 (an element's `{counter}`); absent: 1. */
  counter?: number;
  /** The day the label is drawn (YYYY-MM-DD, an element's `{today}`), set by the service from its clock; absent: the drawing thread's. */
  today?: string;
  /** Custom field values (a date as YYYY-MM-DD, a number as a number), shown by custom lines' placeholders. */
  fields?: Readonly<Record<string, string | number>>;
}

/**
 * A line of text on the label. 'name', 'path' and 'description' are the
 * record's own fields ('path' is drawn segment-aware: it breaks only between
 * locations and keeps its first and last ones); 'custom' is fixed text with
 * placeholders `{name}`, `{id}`, `{assetId}`, `{kind}`, `{path}`, `{description}` and
 * the record's custom fields, with a format (`{best_before|date:short}`, placeholders.ts).
 */
export type TextField = { field: 'name' } | { field: 'path' } | { field: 'description' } | { field: 'custom'; text: string };

export interface TextSpec {
  /** 'title': bold, the largest text after the asset id; 'line': secondary. */
  role: 'title' | 'line';
  source: TextField;
  /**
   * A line that must be printed whole (Grocy's due date): it never gives way to
   * the title's lines, and where it cannot fit the label warns with this word.
   */
  keep?: string;
  /** 'red': drawn in the red plane on a two-colour stock (Stock.colours); black elsewhere, with the warning 'red-as-black'. Absent: black. */
  colour?: 'red';
}

export interface CodeSpec {
  /** 'stock-2d': the stock's 2D symbology (QR; the smaller DataMatrix where a QR code leaves no room: LabelContent.code2d.smaller). */
  symbology: Symbology | 'stock-2d';
  /** The data, with placeholders: `{url}`, `{assetDigits}` (asset id as digits only), `{id}`. */
  data: string;
  /** Human-readable line directly under a linear code (placeholders as for text). */
  caption?: string;
  /**
   * Linear codes: the data is any printable ASCII (not only an asset id's digits), and the
   * code is the label's reason to exist: where it does not fit, the label is refused
   * (LabelFitError) instead of drawn without it.
   */
  text?: true;
  /**
   * Linear codes: drawn only where its bars get 4-dot modules across the print head, the one
   * arrangement that reads after every degradation of the print-and-scan check (3-dot bars
   * fail a half-resolution scan, bars along the head a dead heating element). Elsewhere it is
   * left out as for lack of room: the caption becomes the title and the 2D code carries the record.
   */
  sturdy?: true;
  /**
   * 'red': the code (and a linear code's caption) drawn in the red plane, as TextSpec.colour.
   * A camera reads a red code on the white roll; a red-light laser scanner sees red as white.
   */
  colour?: 'red';
}

export interface LabelDesign {
  /** Text in order of importance: what is dropped last comes first. */
  text: readonly TextSpec[];
  /** At most one 2D code and one linear code; placed by the layout for the stock's shape. */
  codes: readonly CodeSpec[];
  /** Text size bounds in points: nothing is drawn smaller than min (7 pt) or larger than max. */
  textPt: { min: number; max: number };
  /** A fixed line at the bottom; undefined: the deployment's LABEL_FOOTER. */
  footer?: string;
  /** What custom fields' dates and numbers are written in (BCP 47); undefined: DEFAULT_LOCALE. */
  locale?: string;
  /** Which side of a wide label the 2D code takes (default 'left'); tall labels centre it under the text. */
  codePosition?: 'left' | 'right';
  /** A 1-bit picture placed in the corner opposite the 2D code (wide labels) or above the text (tall ones). */
  logo?: Bitmap;
  /**
   * Continuous tape: the shortest label that holds everything whole, not a longer one for a
   * linear code with sturdier bars (Grocy's: one per purchase, read by a phone's camera).
   */
  shortest?: true;
  /**
   * The largest text size (textPt.max) is for labels up to REFERENCE_SHORT_SIDE_MM across their
   * short side; on larger stock it grows in proportion (the standard designs: a 4 x 6 in label's
   * name is set for its size, not at a 62 mm label's).
   */
  growWithStock?: true;
  /**
   * An element design (elements.ts): each element in its own box; text, codes, textPt,
   * codePosition and the logo's corner are then unused (the logo is drawn by image elements).
   */
  elements?: readonly ElementSpec[];
}

/** A 1-bit picture at the stock's dots: PNG scanlines (a filter byte, then packed bits, 1 = white) as png.ts makes them. */
export interface Bitmap {
  width: number;
  height: number;
  rows: Uint8Array;
}

export interface Template {
  /** The `template` query parameter's value. */
  name: string;
  stock: Stock;
  designs: Readonly<Record<LabelKind, LabelDesign>>;
  /** A saved template's revision (its ETag value): label ETags change when it does. Absent for built-in templates. */
  revision?: string;
}

const NAME_AND_PATH: readonly TextSpec[] = [
  { role: 'title', source: { field: 'name' } },
  { role: 'line', source: { field: 'path' } },
];
const QR_URL: CodeSpec = { symbology: 'stock-2d', data: '{url}' };
/** P-touch Editor's auto-fit range on these label sizes. */
const TEXT_PT = { min: 7, max: 36 };

/** Short side (mm) up to which a growing design's largest text is its textPt.max: Brother's 62 mm tape. */
export const REFERENCE_SHORT_SIDE_MM = 62;

/**
 * The largest text size of a design on a stock (LabelDesign.growWithStock): textPt.max, grown in
 * proportion to the stock's short side past REFERENCE_SHORT_SIDE_MM (59 pt on 102 mm stock).
 */
export function largestTextPt(design: Pick<LabelDesign, 'textPt' | 'growWithStock'>, stock: Stock): number {
  const short = Math.min(stock.widthMm, stock.lengthMm ?? stock.widthMm);
  if (!design.growWithStock || short <= REFERENCE_SHORT_SIDE_MM) return design.textPt.max;
  return Math.round((design.textPt.max * short) / REFERENCE_SHORT_SIDE_MM);
}

/** The standard label of each kind (Homebox's content, laid out for real stock). */
export const STANDARD_DESIGNS: Readonly<Record<LabelKind, LabelDesign>> = Object.freeze({
  location: { text: NAME_AND_PATH, codes: [QR_URL], textPt: TEXT_PT, growWithStock: true },
  item: { text: NAME_AND_PATH, codes: [QR_URL], textPt: TEXT_PT, growWithStock: true },
  asset: {
    text: NAME_AND_PATH,
    codes: [QR_URL, { symbology: 'code128', data: '{assetDigits}', caption: '{assetId}', sturdy: true }],
    textPt: TEXT_PT,
    growWithStock: true,
  },
});

/** One design for every kind of label (a saved template's, Grocy's). */
export function sameDesignForEveryKind(design: LabelDesign): Readonly<Record<LabelKind, LabelDesign>> {
  return Object.fromEntries(LABEL_KINDS.map((k) => [k, design])) as Record<LabelKind, LabelDesign>;
}

/** The built-in template of a stock (its name or alias): the standard designs on it. */
export function builtInTemplate(name: string): Template | undefined {
  const stock = findStock(name);
  return stock ? { name, stock, designs: STANDARD_DESIGNS } : undefined;
}

/** Every built-in template name: each stock's name and its aliases. */
export const BUILT_IN_TEMPLATE_NAMES: readonly string[] = STOCK_NAMES;
export const STANDARD_TEMPLATES: readonly Template[] = STOCKS.map((s) => builtInTemplate(s.name)!);
