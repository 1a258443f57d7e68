/**
 * Custom record fields on labels (issue 32): the catalogue and the one check of values
 * (src/records/fields.ts), placeholders with date and number formats in a locale
 * (src/labels/placeholders.ts), and a `best before` date on the smallest stock, measured in
 * the label's dots: drawn whole at no less than 7 pt, or the label warns text-shortened.
 */
import { describe, expect, it } from 'vitest';
import { compileTemplate, engineTemplate } from '../../src/api/template-design.js';
import { formatValue, layoutFor, parsePlaceholders, renderLabel, STOCKS, type LabelRecord, type Stock } from '../../src/labels/index.js';
import { checkFieldValues, FieldError, parseCatalogue } from '../../src/records/fields.js';
import { dots, inkBox } from './ink.js';

const CATALOGUE = parseCatalogue([
  { name: 'best_before', title: 'Best before', type: 'date', min: '2000-01-01' },
  { name: 'purchased', title: 'Purchased', type: 'date' },
  { name: 'warranty_until', title: 'Warranty until', type: 'date' },
  { name: 'quantity', title: 'Quantity', type: 'number', min: 0, max: 1e6 },
  { name: 'serial', title: 'Serial', type: 'text', maxLength: 12 },
  { name: 'manual', title: 'Manual', type: 'url' },
]);

describe('the field catalogue', () => {
  it('takes names that are safe identifiers, known types and fitting bounds; refuses the rest naming the entry', () => {
    expect(CATALOGUE.map((f) => f.name)).toEqual(['best_before', 'purchased', 'warranty_until', 'quantity', 'serial', 'manual']);
    const refused = (raw: unknown) => {
      try {
        parseCatalogue(raw);
        return 'accepted';
      } catch (err) {
        expect(err).toBeInstanceOf(FieldError);
        return (err as Error).message;
      }
    };
    expect(refused([{ name: 'Best Before', type: 'date' }])).toMatch(/fields\[0\]\.name must be/);
    expect(refused([{ name: 'x', type: 'date' }, { name: 'x', type: 'text' }])).toMatch(/field x is declared twice/);
    expect(refused([{ name: 'name', type: 'text' }])).toMatch(/built-in placeholder/);
    expect(refused([{ name: 'x', type: 'colour' }])).toMatch(/type must be one of text, number, date, url/);
    expect(refused([{ name: 'x', type: 'text', min: 1 }])).toMatch(/min is only for number/);
    expect(refused([{ name: 'x', type: 'number', min: 5, max: 1 }])).toMatch(/min is larger than max/);
    expect(refused([{ name: 'x', type: 'date', max: '2026-02-30' }])).toMatch(/max is only for number \(a number\) and date/);
    expect(refused([{ name: 'x', type: 'text', maxLength: 501 }])).toMatch(/maxLength/);
    expect(refused([{ name: 'x', type: 'text', colour: 'red' }])).toMatch(/unknown key colour/);
    expect(refused(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, type: 'text' })))).toMatch(/at most 50 fields/);
  });
});

describe('checkFieldValues: the one check of a record\'s values (import and API writes)', () => {
  const check = (values: unknown) => checkFieldValues(values, CATALOGUE);
  const problem = (values: unknown) => {
    try {
      check(values);
      return 'accepted';
    } catch (err) {
      return (err as FieldError).message;
    }
  };
  it('types each value: a date is an ISO calendar date, a number a number (CSV text too), a url http(s); empty means unset', () => {
    expect(check({ quantity: '12.50', best_before: ' 2026-12-01 ', serial: ' SN-1 ', manual: 'https://example.com/m.pdf', purchased: '' })).toEqual({
      best_before: '2026-12-01',
      manual: 'https://example.com/m.pdf',
      quantity: 12.5,
      serial: 'SN-1',
    });
    expect(check(undefined)).toEqual({});
    expect(check({ quantity: null })).toEqual({});
    expect(problem({ best_before: '2026-02-29' })).toBe("field best_before: '2026-02-29' is not an ISO date (YYYY-MM-DD)");
    expect(problem({ best_before: '01.12.2026' })).toMatch(/not an ISO date/);
    expect(problem({ best_before: '1999-12-31' })).toBe('field best_before: 1999-12-31 is before 2000-01-01');
    expect(problem({ quantity: '12 pcs' })).toBe("field quantity: '12 pcs' is not a number");
    expect(problem({ quantity: 1e7 })).toBe('field quantity: 10000000 is more than 1000000');
    expect(problem({ quantity: true })).toMatch(/is not a number/);
    expect(problem({ manual: 'javascript:alert(1)' })).toMatch(/is not an http\(s\) URL/);
    expect(problem({ manual: 'ftp://example.com/x' })).toMatch(/is not an http\(s\) URL/);
    expect(problem({ serial: 'x'.repeat(13) })).toBe('field serial: longer than 12 characters (13)');
    expect(problem({ serial: 'a\nb' })).toMatch(/line break or a control character/);
    expect(problem({ serial: 5 })).toMatch(/is not text/);
    expect(problem({ colour: 'red' })).toMatch(/^unknown field colour \(declared: best_before, /);
    expect(problem(['x'])).toMatch(/fields must be an object/);
  });
});

describe('placeholders and formats', () => {
  it('parses names with date and number formats; says what is wrong with the rest', () => {
    expect(parsePlaceholders('BB {best_before|date:short} x{quantity|number:2} {name}')).toEqual([
      { text: '{best_before|date:short}', name: 'best_before', format: { kind: 'date', style: 'short' } },
      { text: '{quantity|number:2}', name: 'quantity', format: { kind: 'number', decimals: 2 } },
      { text: '{name}', name: 'name' },
    ]);
    expect(parsePlaceholders('{x|date:weekday}')[0]).toMatchObject({ problem: expect.stringMatching(/date formats are/) });
    expect(parsePlaceholders('{x|number:12}')[0]).toMatchObject({ problem: expect.stringMatching(/0 to 6 decimals/) });
    expect(parsePlaceholders('{x|upper}')[0]).toMatchObject({ problem: expect.stringMatching(/formats are/) });
  });

  it('writes dates as calendar dates (no time zone moves them) and numbers in the locale', () => {
    expect(formatValue('2026-12-01', { kind: 'date', style: 'short' }, 'de-DE')).toBe('01.12.26');
    expect(formatValue('2026-12-01', { kind: 'date', style: 'medium' }, 'de-DE')).toBe('01.12.2026');
    expect(formatValue('2026-12-01', { kind: 'date', style: 'medium' }, 'en-GB')).toBe('1 Dec 2026');
    expect(formatValue('2026-12-01', { kind: 'date', style: 'short' }, 'en-US')).toBe('12/1/26');
    expect(formatValue('2026-01-01', { kind: 'date', style: 'long' }, 'en-US')).toBe('January 1, 2026');
    expect(formatValue('2026-12-01', { kind: 'date', style: 'iso' }, 'de-DE')).toBe('2026-12-01');
    expect(formatValue(1234.5, { kind: 'number', decimals: 2 }, 'de-DE')).toBe('1.234,50');
    expect(formatValue(1234.5, { kind: 'number' }, 'en-GB')).toBe('1,234.5');
    // A value the format does not fit (the catalogue changed since it was stored) is shown as stored.
    expect(formatValue('soon', { kind: 'date', style: 'short' })).toBe('soon');
    expect(formatValue('7', { kind: 'number' })).toBe('7');
  });
});

describe('templates that show fields', () => {
  const record = (fields: LabelRecord['fields']): LabelRecord => ({
    kind: 'item',
    id: 'milk',
    name: 'Whole milk',
    path: ['Kitchen', 'Fridge'],
    url: 'https://inventory.example.com/item/3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30',
    fields,
  });
  const texts = (r: LabelRecord, design: Awaited<ReturnType<typeof compileTemplate>>, stock: Stock) => {
    const { layout } = layoutFor(r, engineTemplate('t', stock, design.design, design.logo, 'r'));
    return { lines: layout.items.flatMap((i) => (i.kind === 'text' ? [i.text] : [])), warnings: layout.warnings, layout };
  };

  it('a saved design names only declared fields, with formats of their type; the problem names the field and where it is', async () => {
    const refused = async (text: string) => {
      try {
        await compileTemplate({ stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text }] }, '', CATALOGUE);
        return 'accepted';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(await refused('BB {best_before|date:short} ({quantity|number:0} left)')).toBe('accepted');
    expect(await refused('BB {best_befor}')).toMatch(/^\/lines\/1\/text: unknown placeholder \{best_befor\} \(placeholders: \{name\}, .*\{best_before\}, \{purchased\}/);
    expect(await refused('{quantity|date:short}')).toMatch(/quantity is a number field; a date format is for date fields/);
    expect(await refused('{name|number}')).toMatch(/\{name\} takes no format/);
    expect(await refused('{best_before|date:tomorrow}')).toMatch(/date formats are/);
    // Without a catalogue no field is known.
    await expect(compileTemplate({ stock: 'brother-ql-62x29', lines: [{ field: 'custom', text: '{best_before}' }] })).rejects.toThrow(/no custom fields are declared/);
    await expect(compileTemplate({ stock: 'brother-ql-62x29', locale: 'xx-QQ-bogus-tag' }, '', CATALOGUE)).rejects.toThrow(/^\/locale: the server cannot write dates/);
  });

  it('fills the values in the template\'s locale; a line whose field the record lacks is left out, not printed with its braces', async () => {
    const stock = STOCKS.find((s) => s.name === 'brother-ql-62x29')!;
    const design = await compileTemplate(
      { stock: stock.name, locale: 'de-DE', lines: [{ field: 'name' }, { field: 'custom', text: 'MHD {best_before|date:medium}' }, { field: 'custom', text: '{quantity|number:1} Stück' }] },
      '',
      CATALOGUE,
    );
    expect(texts(record({ best_before: '2026-12-01', quantity: 2 }), design, stock).lines).toEqual(['Whole milk', 'MHD 01.12.2026', '2,0 Stück']);
    const { lines } = texts(record({ quantity: 2 }), design, stock);
    expect(lines).toEqual(['Whole milk', '2,0 Stück']);
    expect(lines.join(' ')).not.toContain('{');
  });

  const smallest = [...STOCKS].sort((a, b) => a.widthMm * (a.lengthMm ?? Infinity) - b.widthMm * (b.lengthMm ?? Infinity))[0]!;

  it(`on the smallest stock (${smallest.name}) a date line put first prints whole beside the QR code, at 7 pt or more, its ink inside its box`, async () => {
    for (const field of ['best_before', 'purchased', 'warranty_until']) {
      const design = await compileTemplate({ stock: smallest.name, lines: [{ field: 'custom', text: `{${field}|date:medium}` }, { field: 'name' }] }, '', CATALOGUE);
      const r = record({ [field]: '2026-12-01' });
      const { lines, warnings, layout } = texts(r, design, smallest);
      expect(lines, field).toContain('1 Dec 2026');
      expect(warnings).toEqual([]);
      const item = layout.items.find((i) => i.kind === 'text' && i.text === '1 Dec 2026');
      if (item?.kind !== 'text') throw new Error('no date line');
      const px = Number(/(\d+)px/.exec(item.font)![1]);
      expect(px, 'font size in dots').toBeGreaterThanOrEqual(Math.floor((7 / 72) * smallest.dpi));
      const png = renderLabel(r, engineTemplate('t', smallest, design.design, design.logo, 'r')).png;
      const ink = inkBox(dots(png), item.clip.x0, item.clip.y0, item.clip.x1, item.clip.y1);
      expect(ink, 'ink of the date line').toBeDefined();
      // Digits are cap height, about 0.7 of the font size: drawn at its size, not squeezed.
      expect(ink!.y1 - ink!.y0).toBeGreaterThanOrEqual(Math.floor(0.6 * px));
      expect(ink!.x1 - ink!.x0).toBeGreaterThan(2 * px);
    }
  });

  it('on every stock a date line after the name is drawn whole, or the label warns text-shortened: never cut without a word', async () => {
    const cut: string[] = [];
    for (const stock of STOCKS) {
      const design = await compileTemplate({ stock: stock.name, lines: [{ field: 'name' }, { field: 'custom', text: 'Best before {best_before|date:medium}' }] }, '', CATALOGUE);
      const { lines, warnings } = texts(record({ best_before: '2026-12-01' }), design, stock);
      const whole = lines.some((_, i) => lines.slice(i).some((__, j) => lines.slice(i, i + j + 1).join(' ') === 'Best before 1 Dec 2026'));
      if (!whole) {
        expect(warnings, stock.name).toContain('text-shortened');
        cut.push(stock.name);
      }
    }
    expect(cut).not.toContain('brother-ql-62x29');
    console.log(`date line after the name cut (warned text-shortened) on: ${cut.join(', ') || 'none'}`);
  });
});
