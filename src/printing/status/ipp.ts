/**
 * IPP printer status from Get-Printer-Attributes (RFC 8011, PWG 5100.7):
 *   printer-state (§5.4.11): 3 idle, 4 processing, 5 stopped;
 *   printer-state-reasons (§5.4.12): keywords, each possibly suffixed -report, -warning or
 *     -error; "-error" goes with the stopped state, and a keyword without a suffix is an error
 *     (RFC 8011 §5.4.12, as in RFC 2911 §4.4.12);
 *   printer-state-message (§5.4.13);
 *   media-ready (keywords or names) and media-col-ready (collections with media-size
 *     {x-dimension, y-dimension} in 1/100 mm, media-size-name, media-type, media-key, media-source):
 *     the media loaded now (PWG 5100.7 §6.4; IPP Everywhere requires both).
 *
 * Conditions that stop a label printer by their nature (no labels, a jam, a cover or door
 * open, paused) need a person whatever their suffix: a printer may report them as
 * "-report" while still idle (CUPS's ippeveprinter takes the suffix from printer-state).
 */
import type { IppCollection, IppValue } from '../drivers/ipp-codec.js';
import { buildStatus, mediaDescription, needsPerson, sortReasons, type StatusMedia, type StatusReason } from './compose.js';
import { partNumber, sizeWords, stocksBySize, TWO_COLOUR_PART } from './stocks.js';
import type { PrinterStatus } from './types.js';

/** The attributes status asks for. media-col-database is left out of "all", so nothing here relies on "all". */
export const IPP_STATUS_ATTRIBUTES = ['printer-state', 'printer-state-reasons', 'printer-state-message', 'media-ready', 'media-col-ready'];

const PRINTER_STATE = { idle: 3, processing: 4, stopped: 5 } as const;

type Severity = 'report' | 'warning' | 'error';

/** A printer-state-reasons value split into keyword and severity (no suffix = error). */
export function splitReason(value: string): { keyword: string; severity: Severity } {
  const m = /^(.*)-(report|warning|error)$/.exec(value);
  return m ? { keyword: m[1]!, severity: m[2] as Severity } : { keyword: value, severity: 'error' };
}

/** IPP keywords in our vocabulary under another name. */
const SAME_AS: Record<string, StatusReason> = {
  'moving-to-paused': 'paused',
  shutdown: 'offline',
  'input-tray-missing': 'media-empty',
  'media-path-jam': 'media-jam', // PWG 5100.9 "media-path-*"
  'marker-supply-empty': 'ribbon-out', // a thermal-transfer label printer's marker supply is its ribbon
};
/** Stops printing whatever the severity the printer gave it. */
const STOPS_PRINTING: ReadonlySet<StatusReason> = new Set<StatusReason>(['media-empty', 'media-jam', 'door-open', 'cover-open', 'head-open', 'paused', 'ribbon-out']);
const OURS: ReadonlySet<string> = new Set(['media-empty', 'media-needed', 'media-jam', 'media-low', 'door-open', 'cover-open', 'paused', 'offline']);

export type IppAttributes = ReadonlyMap<string, readonly IppValue[]>;

/** PrinterStatus from the printer group of a Get-Printer-Attributes response. */
export function ippPrinterStatus(attrs: IppAttributes, checkedAt = new Date()): PrinterStatus {
  const state = num(attrs.get('printer-state')?.[0]);
  const reasons: StatusReason[] = [];
  let errorSeverity = false;
  for (const value of strs(attrs.get('printer-state-reasons'))) {
    if (value === 'none') continue;
    const { keyword, severity } = splitReason(value);
    const ours = OURS.has(keyword) ? (keyword as StatusReason) : SAME_AS[keyword];
    if (ours) {
      if (severity === 'error' || STOPS_PRINTING.has(ours) || (ours === 'media-needed' && state === PRINTER_STATE.processing)) reasons.push(ours);
      else if (ours === 'media-low') reasons.push(ours);
    } else if (severity === 'error' && !keyword.startsWith('cups-')) {
      reasons.push('other'); // an error we have no word for (CUPS's own cups-* reasons are about the queue)
    }
    if (severity === 'error') errorSeverity = true;
  }
  if (state === PRINTER_STATE.stopped && !needsPerson(reasons)) reasons.push(reasons.includes('offline') ? 'offline' : errorSeverity ? 'other' : 'paused');
  const sorted = sortReasons(reasons);
  const printerMessage = strs(attrs.get('printer-state-message'))[0]?.trim();

  const media = ippMedia(attrs);
  let result: PrinterStatus['state'];
  if (sorted.includes('offline')) result = 'offline';
  else if (needsPerson(sorted)) result = 'attention';
  else if (state === PRINTER_STATE.processing) result = 'printing';
  else if (state === PRINTER_STATE.idle) result = 'ready';
  else result = 'unknown';
  // The printer's own words explain a stop; otherwise they repeat its state ("Idle.", "Ready to print.").
  const detail = result === 'attention' && state === PRINTER_STATE.stopped && printerMessage ? `The printer says: ${printerMessage}` : undefined;
  return buildStatus(result, sorted, media, checkedAt, detail);
}

interface ReadyMedia {
  name?: string;
  key?: string;
  type?: string;
  widthMm: number | null;
  /** 0 = continuous roll; null = not told. */
  lengthMm: number | null;
}

/** The loaded media: media-col-ready if the printer gives it, else the names in media-ready. */
function ippMedia(attrs: IppAttributes): StatusMedia | null {
  const loaded: ReadyMedia[] = [];
  for (const col of attrs.get('media-col-ready') ?? []) {
    if (!isCollection(col)) continue;
    const size = col['media-size']?.[0];
    const name = strs(col['media-size-name'])[0];
    const type = strs(col['media-type'])[0];
    const key = strs(col['media-key'])[0];
    const x = isCollection(size) ? num(size['x-dimension']?.[0]) : undefined;
    const yValue = isCollection(size) ? size['y-dimension']?.[0] : undefined;
    const y = num(yValue);
    const continuous = isContinuous(name ?? key, type) || (typeof yValue === 'object' && yValue !== null && 'lower' in yValue);
    loaded.push({
      ...(name ? { name } : {}),
      ...(key ? { key } : {}),
      ...(type ? { type } : {}),
      widthMm: x !== undefined ? x / 100 : null,
      lengthMm: continuous ? 0 : y !== undefined ? y / 100 : null,
    });
  }
  if (loaded.length === 0) {
    for (const name of strs(attrs.get('media-ready'))) {
      const size = pwgSize(name);
      loaded.push({ name, widthMm: size?.widthMm ?? null, lengthMm: size ? (isContinuous(name) ? 0 : size.lengthMm) : null });
    }
  }
  if (loaded.length === 0) return null;

  const stocks = new Set<string>();
  const described: { what: string; part?: string; red: boolean | null; media: ReadyMedia }[] = [];
  for (const m of loaded) {
    // LPrint names the two-colour roll after its part number (roll_dk2251-…); nothing else in IPP says "red".
    const red = /dk-?2?2251/i.test(`${m.name ?? ''} ${m.key ?? ''}`) ? true : null;
    const sized = m.widthMm !== null && m.lengthMm !== null;
    const matched = sized ? stocksBySize(m.widthMm!, m.lengthMm!, red) : [];
    for (const s of matched) stocks.add(s.name);
    const what = sized ? sizeWords(m.widthMm!, m.lengthMm!, red) : (m.name ?? m.key ?? 'unnamed media');
    // A stock's part number only when the printer's media name carries it (roll_dk22205-… is DK-22205; a 4x6 is not a DK-11241).
    const label = `${m.name ?? ''} ${m.key ?? ''}`.toLowerCase();
    const named = matched.map(partNumber).find((p) => p !== undefined && label.includes(p.replace(/^DK-/, '')));
    const part = red ? TWO_COLOUR_PART : (named ?? m.name ?? m.key);
    described.push({ what, ...(part && part !== what ? { part } : {}), red, media: m });
  }
  const first = described[0]!;
  const words = described.length === 1 ? { what: first.what, ...(first.part ? { part: first.part } : {}) } : { what: described.map(mediaDescription).join('; ') };
  return {
    info: { description: mediaDescription(words), widthMm: first.media.widthMm, lengthMm: first.media.lengthMm, red: first.red, stocks: [...stocks] },
    words,
  };
}

function isContinuous(name: string | undefined, type?: string): boolean {
  return (type !== undefined && type.startsWith('continuous')) || (name !== undefined && name.startsWith('roll_'));
}

/**
 * Size from a PWG self-describing media name (PWG 5101.1 §5): class_name_WxHunit, e.g.
 * roll_dk22205-continuous_62x30480mm, na_index-4x6_4x6in.
 */
export function pwgSize(name: string): { widthMm: number; lengthMm: number } | undefined {
  const m = /_(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(mm|in)$/.exec(name);
  if (!m) return undefined;
  const unit = m[3] === 'in' ? 25.4 : 1;
  return { widthMm: round2(Number(m[1]) * unit), lengthMm: round2(Number(m[2]) * unit) };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function isCollection(v: IppValue | undefined): v is IppCollection {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && !('x' in v) && !('lower' in v);
}

function num(v: IppValue | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function strs(values: readonly IppValue[] | undefined): string[] {
  return (values ?? []).filter((v): v is string => typeof v === 'string');
}
