/**
 * The shared vocabulary of printer status: the reason keywords every protocol is
 * mapped to (IPP's, RFC 8011 §5.4.12, plus the few label printers add), their plain
 * words, and the status values that do not come from a printer's answer.
 */
import type { PrinterMedia, PrinterReason, PrinterState, PrinterStatus } from './types.js';

/** The spec's reason keywords (PrinterStatus.reasons). */
export type StatusReason = PrinterReason;

const WORDS: Record<StatusReason, string> = {
  'media-empty': 'Out of labels',
  'media-needed': 'Waiting for labels to be loaded',
  'media-jam': 'Labels jammed',
  'media-low': 'Labels running low',
  'door-open': 'Door open',
  'cover-open': 'Cover open',
  'head-open': 'Print head open',
  'ribbon-out': 'Out of ribbon',
  paused: 'Paused',
  'wrong-media': 'Wrong roll loaded',
  'cutter-jam': 'Cutter jammed',
  overheated: 'Too hot: cooling down',
  offline: 'Not reachable',
  other: 'Needs attention',
};

/** Every reason keyword, in the spec's order (WORDS is held to the spec's enum by its type). */
export const STATUS_REASONS = Object.keys(WORDS) as StatusReason[];

/** Reasons that mean a person must act before the printer prints: all but a low roll and an unreachable printer. */
const NEEDS_PERSON: ReadonlySet<StatusReason> = new Set(STATUS_REASONS.filter((r) => r !== 'media-low' && r !== 'offline'));

export function needsPerson(reasons: readonly StatusReason[]): boolean {
  return reasons.some((r) => NEEDS_PERSON.has(r));
}

/** Each reason once, in the vocabulary's order (so equal conditions always read the same). */
export function sortReasons(reasons: Iterable<StatusReason>): StatusReason[] {
  const set = new Set(reasons);
  return STATUS_REASONS.filter((r) => set.has(r));
}

/**
 * The sentence people read: what is wrong, then what is loaded.
 * "Out of labels (62 mm continuous roll, DK-22205)." / "Cover open. 62 mm continuous roll loaded (DK-22205)."
 */
export function statusMessage(state: PrinterState, reasons: readonly StatusReason[], media: MediaWords | null, detail?: string): string {
  const parts: string[] = [];
  const empty = reasons.includes('media-empty');
  for (const r of reasons) {
    if (r === 'media-empty' && media) parts.push(`${WORDS[r]} (${media.what}${media.part ? `, ${media.part}` : ''}).`);
    else parts.push(`${WORDS[r]}.`);
  }
  if (detail) parts.push(detail.endsWith('.') ? detail : `${detail}.`);
  if (media && !empty) parts.push(`${capitalise(media.what)} loaded${media.part ? ` (${media.part})` : ''}.`);
  if (parts.length === 0) parts.push(state === 'printing' ? 'Printing.' : state === 'ready' ? 'Ready.' : 'Status unknown.');
  else if (state === 'printing' && reasons.length === 0) parts.unshift('Printing.');
  return parts.join(' ');
}

/** Media as the message names it: "62 mm continuous roll" and its part number or media name. */
export interface MediaWords {
  what: string;
  part?: string;
}

export function mediaDescription(words: MediaWords): string {
  return words.part ? `${words.what} (${words.part})` : words.what;
}

/** Media for buildStatus: the API's fields and the words for the message. */
export interface StatusMedia {
  info: PrinterMedia;
  words: MediaWords;
}

export function buildStatus(state: PrinterState, reasons: readonly StatusReason[], media: StatusMedia | null, checkedAt: Date, detail?: string): PrinterStatus {
  return {
    state,
    reasons: [...reasons],
    message: statusMessage(state, reasons, media?.words ?? null, detail),
    media: media?.info ?? null,
    checkedAt: checkedAt.toISOString(),
  };
}

/** Not reachable: nothing answered (refused, no route, time-out). `why` says what was tried. */
export function offlineStatus(why: string, checkedAt = new Date()): PrinterStatus {
  return { state: 'offline', reasons: ['offline'], message: `Not reachable: ${why}.`, media: null, checkedAt: checkedAt.toISOString() };
}

/** The printer cannot tell (or did not): never "ready". */
export function unknownStatus(why: string, checkedAt = new Date()): PrinterStatus {
  return { state: 'unknown', reasons: [], message: `Status unknown: ${why}.`, media: null, checkedAt: checkedAt.toISOString() };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
