/**
 * Label stock: the printable area in printer dots, exactly as the printer
 * expects the raster (see shared notes/printing.md). Rendered PNGs always have
 * these dimensions; a label never grows past its stock.
 */

export const PRESET_NAMES = [
  'brother-ql-62x29',
  'brother-ql-62x100',
  'brother-ql-62',
  'brother-ql-29x90',
  'brother-ql-38x90',
  'brother-ql-17x54',
  'brother-ql-102x152',
  'dymo-30252',
  'dymo-30334',
  'dymo-99012',
  'zebra-2x1-203dpi',
  'zebra-2.25x1.25-203dpi',
  'zebra-4x6-203dpi',
  'zebra-2x1-300dpi',
  'zebra-4x6-300dpi',
  'homebox-526x200',
] as const;

export type PresetName = (typeof PRESET_NAMES)[number];

/** Longest label drawn on continuous 62 mm tape: 2000 dots ≈ 169 mm at 300 dpi. */
export const CONTINUOUS_MAX_HEIGHT_PX = 2000;

export interface Preset {
  name: PresetName;
  title: string;
  /** Printable width in dots (across the print head). */
  widthPx: number;
  /** Printable length in dots; null on continuous tape (the length follows content). */
  heightPx: number | null;
  /** Upper bound on the length for continuous tape; equals heightPx on die-cut stock. */
  maxHeightPx: number;
  /** Density the module sizes and minimum text size are computed for. */
  dpi: 203 | 300;
  /**
   * How the design is laid out relative to the raster. 'rotated': tall narrow
   * stock fed narrow edge first; like P-touch Editor and DYMO Connect we design
   * landscape across the long side and rotate it 90° clockwise into the raster
   * (text then reads top to bottom in the PNG, left to right on the applied label).
   */
  orientation: 'landscape' | 'portrait' | 'rotated';
}

type Row = [PresetName, string, number, number | null, 203 | 300, Preset['orientation']];

const ROWS: Row[] = [
  ['brother-ql-62x29', 'Brother QL 62 × 29 mm die-cut', 696, 271, 300, 'landscape'],
  ['brother-ql-62x100', 'Brother QL 62 × 100 mm die-cut', 696, 1109, 300, 'portrait'],
  ['brother-ql-62', 'Brother QL 62 mm continuous', 696, null, 300, 'landscape'],
  ['brother-ql-29x90', 'Brother QL 29 × 90 mm die-cut', 306, 991, 300, 'rotated'],
  ['brother-ql-38x90', 'Brother QL 38 × 90 mm die-cut', 413, 991, 300, 'rotated'],
  ['brother-ql-17x54', 'Brother QL 17 × 54 mm die-cut', 165, 566, 300, 'rotated'],
  ['brother-ql-102x152', 'Brother QL 102 × 152 mm die-cut', 1164, 1660, 300, 'portrait'],
  ['dymo-30252', 'DYMO 30252 address 28 × 89 mm', 299, 963, 300, 'rotated'],
  ['dymo-30334', 'DYMO 30334 multipurpose 57 × 32 mm', 651, 339, 300, 'landscape'],
  ['dymo-99012', 'DYMO 99012 large address 36 × 89 mm', 392, 961, 300, 'rotated'],
  ['zebra-2x1-203dpi', 'Zebra 2 × 1 in, 203 dpi', 406, 203, 203, 'landscape'],
  ['zebra-2.25x1.25-203dpi', 'Zebra 2.25 × 1.25 in, 203 dpi', 457, 254, 203, 'landscape'],
  ['zebra-4x6-203dpi', 'Zebra 4 × 6 in, 203 dpi', 812, 1218, 203, 'portrait'],
  ['zebra-2x1-300dpi', 'Zebra 2 × 1 in, 300 dpi', 600, 300, 300, 'landscape'],
  ['zebra-4x6-300dpi', 'Zebra 4 × 6 in, 300 dpi', 1200, 1800, 300, 'portrait'],
  // Homebox's default size (nominally 72 dpi); printed on ~203 dpi hardware, so 203-dpi rules.
  ['homebox-526x200', 'Homebox default 526 × 200 px', 526, 200, 203, 'landscape'],
];

const PRESETS: ReadonlyMap<PresetName, Preset> = new Map(
  ROWS.map(([name, title, widthPx, heightPx, dpi, orientation]) => [
    name,
    Object.freeze({ name, title, widthPx, heightPx, maxHeightPx: heightPx ?? CONTINUOUS_MAX_HEIGHT_PX, dpi, orientation }),
  ]),
);

export function isPresetName(name: string): name is PresetName {
  return PRESETS.has(name as PresetName);
}

export function getPreset(name: PresetName): Preset {
  const p = PRESETS.get(name);
  if (!p) throw new RangeError(`unknown label preset: ${String(name)}`);
  return p;
}
