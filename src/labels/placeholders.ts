/**
 * Placeholders of a template's custom lines (`{name}`, `{best_before|date:short}`,
 * `{quantity|number:2}`) and the formats of custom field values, written with Intl for
 * the template's locale. Pure: template-design.ts checks a line's placeholders with
 * parsePlaceholders when a template is saved, content.ts fills them when a label is drawn.
 */

/** One `{...}` of a line: the name, and the format if it asks for one. */
export interface Placeholder {
  /** The whole `{...}` as written. */
  text: string;
  name: string;
  format?: { kind: 'date'; style: DateStyle } | { kind: 'number'; decimals?: number };
}

export type DateStyle = 'short' | 'medium' | 'long' | 'iso';
export const DATE_STYLES: readonly DateStyle[] = ['short', 'medium', 'long', 'iso'];
/** What a label's dates and numbers are written in when its template names no locale. */
export const DEFAULT_LOCALE = 'en-GB';
/** Most decimals `{x|number:N}` may ask for. */
export const MAX_DECIMALS = 6;

/** Every `{...}` of a text; `problem` says what is wrong with one that is not a well-formed placeholder. */
export function parsePlaceholders(text: string): (Placeholder | { text: string; problem: string })[] {
  return [...text.matchAll(/\{([^{}]*)\}/g)].map((m) => {
    const whole = m[0];
    const [name = '', format, ...rest] = m[1]!.split('|');
    if (!/^\w+$/.test(name)) return { text: whole, problem: 'a placeholder is a name in braces' };
    if (format === undefined) return { text: whole, name };
    if (rest.length > 0) return { text: whole, problem: 'one format per placeholder' };
    const [kind, arg, ...more] = format.split(':');
    if (kind === 'date' && more.length === 0) {
      const style = (arg ?? 'medium') as DateStyle;
      if (!DATE_STYLES.includes(style)) return { text: whole, problem: `date formats are ${DATE_STYLES.map((s) => `date:${s}`).join(', ')}` };
      return { text: whole, name, format: { kind: 'date', style } };
    }
    if (kind === 'number' && more.length === 0) {
      if (arg === undefined) return { text: whole, name, format: { kind: 'number' } };
      const decimals = /^\d$/.test(arg) ? Number(arg) : NaN;
      if (!(decimals <= MAX_DECIMALS)) return { text: whole, problem: `number:N takes 0 to ${MAX_DECIMALS} decimals` };
      return { text: whole, name, format: { kind: 'number', decimals } };
    }
    return { text: whole, problem: 'formats are date:short, date:medium, date:long, date:iso, number and number:N' };
  });
}

/** Whether Intl can write dates and numbers for this locale (else the template is refused). */
export function isSupportedLocale(locale: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([locale]).length > 0 && Intl.NumberFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false; // a malformed tag
  }
}

const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
const MAX_FORMATTERS = 64;

function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = formatters.get(key) as T | undefined;
  if (!f) {
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value as string);
    f = make();
    formatters.set(key, f);
  }
  return f;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A field value as its placeholder asks: a date (YYYY-MM-DD) in the locale's short, medium
 * or long form (a calendar date: no time zone shifts it), a number grouped or with fixed
 * decimals. A value the format does not fit (a catalogue changed since it was stored) is shown as stored.
 */
export function formatValue(value: string | number, format: Placeholder['format'], locale = DEFAULT_LOCALE): string {
  if (!format) return String(value);
  if (format.kind === 'date') {
    const m = typeof value === 'string' ? ISO_DATE.exec(value) : null;
    if (!m || format.style === 'iso') return String(value);
    const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return cached(`d|${locale}|${format.style}`, () => new Intl.DateTimeFormat(locale, { dateStyle: format.style as 'short' | 'medium' | 'long', timeZone: 'UTC' })).format(at);
  }
  if (typeof value !== 'number') return String(value);
  const d = format.decimals;
  return cached(`n|${locale}|${d ?? ''}`, () => new Intl.NumberFormat(locale, d === undefined ? { maximumFractionDigits: MAX_DECIMALS } : { minimumFractionDigits: d, maximumFractionDigits: d })).format(value);
}

/** True for a value that is a calendar date (a `date` field's): lines showing one are printed whole or warn. */
export function isDateValue(value: string | number | undefined): boolean {
  return typeof value === 'string' && ISO_DATE.test(value);
}
