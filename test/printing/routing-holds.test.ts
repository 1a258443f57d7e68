/** The routing rule (routing.ts) and the hold rule (holds.ts), each one pure function (issue 31). */
import { describe, expect, it } from 'vitest';
import { choosePrinter, holdReason, UnknownPrinterError } from '../../src/printing/index.js';

const printer = (name: string, extra: Partial<{ locationId: string | null; stocks: string[]; red: boolean; isDefault: boolean; reported: string[] }> = {}) => ({ name, locationId: null, stocks: [], red: false, isDefault: false, ...extra });
const FLEET = [
  printer('front', { isDefault: true }),
  printer('shelf-any', { locationId: 'shelf-3' }),
  printer('shelf-62', { locationId: 'shelf-3', stocks: ['brother-ql-62'] }),
  printer('bin-zebra', { locationId: 'bin-12', stocks: ['zebra-4x6-203dpi'] }),
];

describe('choosePrinter', () => {
  it('takes the printer the request names, and refuses a name the fleet lacks', () => {
    expect(choosePrinter(FLEET, { requested: 'bin-zebra', stock: 'brother-ql-62', locations: ['shelf-3'] })?.name).toBe('bin-zebra');
    expect(() => choosePrinter(FLEET, { requested: 'nowhere', stock: 'brother-ql-62', locations: [] })).toThrow(UnknownPrinterError);
  });
  it('walks the locations nearest first and takes the first printer there with the stock; one listing it beats one taking any', () => {
    // bin-12's Zebra lacks the stock: its parent shelf-3 has two; the one listing 62 mm wins.
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62', locations: ['bin-12', 'shelf-3'] })?.name).toBe('shelf-62');
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62x29', locations: ['bin-12', 'shelf-3'] })?.name).toBe('shelf-any');
    expect(choosePrinter(FLEET, { stock: 'zebra-4x6-203dpi', locations: ['bin-12', 'shelf-3'] })?.name).toBe('bin-zebra');
  });
  it('passes over a nearer printer without red for a label on the red/black stock', () => {
    const fleet = [...FLEET, printer('garage-red', { locationId: 'garage', red: true })];
    // shelf-3's printers take any stock but print no red: the garage's red printer, one place further out.
    expect(choosePrinter(fleet, { stock: 'brother-ql-62-red', locations: ['bin-12', 'shelf-3', 'garage'] })?.name).toBe('garage-red');
    // None placed that prints red: the default, where the hold rule says why.
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62-red', locations: ['bin-12', 'shelf-3'] })?.name).toBe('front');
    // Black labels are not kept off a red printer by routing: its loaded roll (status) holds them.
    expect(choosePrinter(fleet, { stock: 'brother-ql-62', locations: ['garage'] })?.name).toBe('garage-red');
  });
  it('falls back to the default printer, and has nothing without printers', () => {
    expect(choosePrinter(FLEET, { stock: 'zebra-4x6-203dpi', locations: ['garage'] })?.name).toBe('front');
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62', locations: [] })?.name).toBe('front');
    expect(choosePrinter([], { stock: 'brother-ql-62', locations: [] })).toBeUndefined();
  });
  it('passes over a printer that cannot print now for one that can: nearest ready first, then the default, then one known to have the roll', () => {
    const down = (names: string[]) => (p: { name: string }) => (names.includes(p.name) ? `${p.name} is not answering.` : null);
    // shelf-62 is offline: shelf-any in the same place can print it.
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62', locations: ['bin-12', 'shelf-3'] }, down(['shelf-62']))?.name).toBe('shelf-any');
    // Both at shelf-3 are down: the default.
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62', locations: ['bin-12', 'shelf-3'] }, down(['shelf-62', 'shelf-any']))?.name).toBe('front');
    // The default has a 62 mm roll loaded (it says so); a Zebra label goes to the unplaced printer that lists 4x6.
    const fleet = [
      printer('front', { isDefault: true, reported: ['brother-ql-62'] }),
      printer('shipping', { stocks: ['zebra-4x6-203dpi'] }),
      printer('office'),
    ];
    const wrongRoll = (p: { name: string; reported?: string[] }) => (p.reported?.length && !p.reported.includes('zebra-4x6-203dpi') ? 'wrong roll' : null);
    expect(choosePrinter(fleet, { stock: 'zebra-4x6-203dpi', locations: [] }, wrongRoll)?.name).toBe('shipping');
    // A printer that takes any stock and tells nothing (office) is no evidence of the roll: with shipping down, the job waits on the default.
    expect(choosePrinter(fleet, { stock: 'zebra-4x6-203dpi', locations: [] }, (p) => wrongRoll(p) ?? (p.name === 'shipping' ? 'down' : null))?.name).toBe('front');
    // One that reports the roll loaded counts as known to have it.
    const reports = [printer('front', { isDefault: true, reported: ['brother-ql-62'] }), printer('bench', { reported: ['zebra-4x6-203dpi'] }), printer('aa-office')];
    expect(choosePrinter(reports, { stock: 'zebra-4x6-203dpi', locations: [] }, wrongRoll)?.name).toBe('bench');
  });
  it('with no printer able to print now, holds the job where it would go: the nearest placed that takes the stock, else the default', () => {
    const none = () => 'down';
    expect(choosePrinter(FLEET, { stock: 'brother-ql-62', locations: ['bin-12', 'shelf-3'] }, none)?.name).toBe('shelf-62');
    expect(choosePrinter(FLEET, { stock: 'zebra-4x6-203dpi', locations: ['garage'] }, none)?.name).toBe('front');
  });
});

describe('holdReason', () => {
  const ql = { title: 'Bench QL', stocks: [] as string[], red: false };
  const media = (stocks: string[], red: boolean | null = false) => ({ description: '62 mm continuous (DK-22205)', widthMm: 62, lengthMm: 0, red, stocks });
  it('holds for offline and attention, in plain words', () => {
    expect(holdReason(ql, { state: 'offline', message: 'x' }, { stock: 'brother-ql-62' })).toBe('Bench QL is not answering.');
    expect(holdReason(ql, { state: 'attention', message: 'Out of labels (62 mm roll, DK-22205).' }, { stock: 'brother-ql-62' })).toBe('Out of labels (62 mm roll, DK-22205).');
  });
  it("holds a stock the printer's settings or its loaded roll do not have", () => {
    expect(holdReason({ ...ql, stocks: ['zebra-4x6-203dpi'] }, null, { stock: 'brother-ql-62' })).toBe('Bench QL has Zebra 4 × 6 in, 203 dpi loaded; this label needs Brother QL 62 mm continuous (DK-22205).');
    expect(holdReason(ql, { state: 'ready', media: media(['brother-ql-62']) }, { stock: 'brother-ql-62x29' })).toBe('Bench QL has 62 mm continuous (DK-22205) loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).');
  });
  it('holds red for a printer without red', () => {
    expect(holdReason(ql, { state: 'ready' }, { stock: 'brother-ql-62', red: true })).toMatch(/cannot print red/);
    expect(holdReason({ ...ql, red: true }, { state: 'ready', media: media(['brother-ql-62'], false) }, { stock: 'brother-ql-62', red: true })).toMatch(/cannot print red/);
    expect(holdReason({ ...ql, red: true }, { state: 'ready', media: media(['brother-ql-62'], true) }, { stock: 'brother-ql-62', red: true })).toBeNull();
    // A job on the red/black stock needs red from its stock alone.
    expect(holdReason(ql, { state: 'ready' }, { stock: 'brother-ql-62-red' })).toMatch(/red\/black roll/);
    expect(holdReason({ ...ql, red: true }, { state: 'ready' }, { stock: 'brother-ql-62-red' })).toBeNull();
  });
  it('never holds for ready, printing, unknown or no reading when the label fits', () => {
    for (const state of ['ready', 'printing', 'unknown']) expect(holdReason(ql, { state, media: media(['brother-ql-62']) }, { stock: 'brother-ql-62' })).toBeNull();
    expect(holdReason(ql, null, { stock: 'brother-ql-62' })).toBeNull();
    expect(holdReason(ql, { state: 'unknown', media: null }, { stock: 'brother-ql-62x29' })).toBeNull();
  });
});
