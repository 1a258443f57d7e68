/**
 * What a printer says about itself (issue 31), as the API will show it: the spec's
 * `PrinterStatus` schema. The lead replaces these with the generated types at merge,
 * so the field names are fixed (see the fleet design) and nothing else lives here.
 */

/**
 * ready: can print now. printing: busy but fine. attention: needs a person (media empty,
 * jam, cover/door/head open, paused, wrong roll, ribbon out). offline: not reachable.
 * unknown: the protocol cannot tell (folder, command), or the printer did not say.
 */
export type PrinterState = 'ready' | 'printing' | 'attention' | 'offline' | 'unknown';

/** The roll or labels loaded, as far as the printer tells. */
export interface PrinterMedia {
  /** Plain words, e.g. "62 mm continuous roll (DK-22205)". */
  description: string;
  widthMm: number | null;
  /** Label length; 0 = continuous roll; null = not told. */
  lengthMm: number | null;
  /** Whether a red/black two-colour roll is loaded (null: the printer cannot tell). */
  red: boolean | null;
  /** Our stock names (labels/stock.ts) that match what is loaded. */
  stocks: string[];
}

export interface PrinterStatus {
  state: PrinterState;
  /** IPP-style keywords without a severity suffix (see STATUS_REASONS). */
  reasons: string[];
  /** Plain words for people, e.g. "Out of labels (62 mm continuous roll, DK-22205)." */
  message: string;
  media: PrinterMedia | null;
  /** When the printer was asked (ISO 8601). */
  checkedAt: string;
}
