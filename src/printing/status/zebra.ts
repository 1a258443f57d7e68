/**
 * Zebra status over the raw port (TCP 9100): the host status `~HS` and the error
 * query `~HQES`, both control (tilde) commands a printer answers "at any time"
 * (Zebra ZPL Programming Guide, "Control Commands"; docs.zebra.com).
 *
 * ~HS answers three strings, each <STX>…<ETX><CR><LF> (ZPL guide, ~HS; SGD device.host_status):
 *   1  aaa,b,c,dddd,eee,f,g,h,iii,j,k,l   b paper out, c pause, dddd label length (dots),
 *      eee formats in the receive buffer, f buffer full, g diagnostic mode, h partial format,
 *      iii unused, j corrupt RAM, k under temperature, l over temperature
 *   2  mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www  o head up, p ribbon out, q thermal transfer, r print mode,
 *      s print width mode, t label waiting, uuuuuuuu labels remaining in the batch, v always 1, www graphics
 *   3  xxxx,y                             password, static RAM installed
 * Zebra's own warning: with ~HS "the printer will not send a response to the host if the
 * printer is in one of these conditions: MEDIA OUT, RIBBON OUT, HEAD OPEN, REWINDER FULL,
 * HEAD OVER-TEMPERATURE" (ZPL guide, ~HS). So silence is never "ready".
 *
 * ~HQES answers one <STX>…<ETX> block of CRLF lines: "PRINTER STATUS", "ERRORS: f gggggggg
 * hhhhhhhh", "WARNINGS: f gggggggg hhhhhhhh"; f is 1 when any flag is set and the last eight
 * hex digits are flags, nibble 1 the last digit (ZPL guide, ~HQ and ~WQ "Error Flags" /
 * "Warning Flags"; e.g. "ERRORS: 1 00000000 00000005" = media out + head open).
 *
 * Both are sent at once: the printer answers in order, so once the ~HQES block is in,
 * a missing ~HS answer will not come.
 */
import { connect } from 'node:net';
import { buildStatus, needsPerson, offlineStatus, sortReasons, unknownStatus, type StatusReason } from './compose.js';
import type { PrinterStatus } from './types.js';

export const ZEBRA_STATUS_QUERY = '~HS~HQES';

export interface ZebraHostStatus {
  paperOut: boolean;
  paused: boolean;
  labelLengthDots: number;
  formatsInBuffer: number;
  bufferFull: boolean;
  partialFormat: boolean;
  corruptRam: boolean;
  underTemperature: boolean;
  overTemperature: boolean;
  headUp: boolean;
  ribbonOut: boolean;
  thermalTransfer: boolean;
  labelWaiting: boolean;
  labelsRemaining: number;
}

export interface ZebraErrorQuery {
  /** The low 32 flag bits of ERRORS (the high group is only ever named as "other"). */
  errors: number;
  errorsHigh: number;
  warnings: number;
}

/** The <STX>…<ETX> blocks of a reply, in order (an unterminated last block is left out). */
export function stxBlocks(text: string): string[] {
  const out: string[] = [];
  const re = /\x02([^\x02\x03]*)\x03/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]!);
  return out;
}

/** The ~HS answer within a reply, or undefined when its first two strings are not there. */
export function parseHostStatus(text: string): ZebraHostStatus | undefined {
  const blocks = stxBlocks(text).filter((b) => !/ERRORS:|WARNINGS:|PRINTER STATUS/.test(b));
  const one = blocks[0]?.split(',').map((f) => f.trim());
  const two = blocks[1]?.split(',').map((f) => f.trim());
  if (!one || one.length !== 12 || !two || two.length !== 11) return undefined;
  if (![...one, ...two].every((f) => /^\d+$/.test(f))) return undefined;
  const flag = (f: string): boolean => f === '1';
  return {
    paperOut: flag(one[1]!),
    paused: flag(one[2]!),
    labelLengthDots: Number(one[3]),
    formatsInBuffer: Number(one[4]),
    bufferFull: flag(one[5]!),
    partialFormat: flag(one[7]!),
    corruptRam: flag(one[9]!),
    underTemperature: flag(one[10]!),
    overTemperature: flag(one[11]!),
    headUp: flag(two[2]!),
    ribbonOut: flag(two[3]!),
    thermalTransfer: flag(two[4]!),
    labelWaiting: flag(two[7]!),
    labelsRemaining: Number(two[8]),
  };
}

/** The ~HQES answer within a reply, or undefined. */
export function parseErrorQuery(text: string): ZebraErrorQuery | undefined {
  const block = stxBlocks(text).find((b) => /ERRORS:/.test(b));
  if (!block) return undefined;
  const errors = /ERRORS:\s*([01])\s+([0-9A-F]{8})\s+([0-9A-F]{8})/i.exec(block);
  const warnings = /WARNINGS:\s*([01])\s+([0-9A-F]{8})\s+([0-9A-F]{8})/i.exec(block);
  if (!errors) return undefined;
  return { errorsHigh: parseInt(errors[2]!, 16), errors: parseInt(errors[3]!, 16), warnings: warnings ? parseInt(warnings[3]!, 16) : 0 };
}

// ZPL guide, ~WQ/~HQ error flags: nibble 1 = bits 0-3, nibble 2 = bits 4-7, nibble 3 = bits 8-11.
const ERROR_FLAGS: [number, StatusReason][] = [
  [0x1, 'media-empty'], // media out
  [0x2, 'ribbon-out'],
  [0x4, 'head-open'],
  [0x8, 'cutter-jam'], // cutter fault
  [0x10, 'overheated'], // printhead over-temperature
  [0x20, 'overheated'], // motor over-temperature
  [0x40, 'other'], // bad printhead element
  [0x80, 'other'], // printhead detection error
  [0x100, 'other'], // invalid firmware configuration
  [0x200, 'other'], // printhead thermistor open
];
const WARNING_WORDS: [number, string][] = [
  [0x1, 'Media needs calibrating'],
  [0x2, 'Clean the print head'],
  [0x4, 'Replace the print head'],
];
const WARNING_PAPER_NEAR_END = 0x8;

function hqesReasons(q: ZebraErrorQuery): StatusReason[] {
  const reasons: StatusReason[] = [];
  for (const [bit, reason] of ERROR_FLAGS) if (q.errors & bit) reasons.push(reason);
  const known = ERROR_FLAGS.reduce((all, [bit]) => all | bit, 0);
  if (q.errors & ~known || q.errorsHigh) reasons.push('other');
  if (q.warnings & WARNING_PAPER_NEAR_END) reasons.push('media-low');
  return reasons;
}

function hsReasons(hs: ZebraHostStatus): StatusReason[] {
  const reasons: StatusReason[] = [];
  if (hs.paperOut) reasons.push('media-empty');
  if (hs.paused) reasons.push('paused');
  if (hs.headUp) reasons.push('head-open');
  if (hs.ribbonOut) reasons.push('ribbon-out');
  if (hs.overTemperature) reasons.push('overheated');
  if (hs.underTemperature || hs.corruptRam) reasons.push('other');
  return reasons;
}

export interface ZebraReply {
  hs?: ZebraHostStatus;
  hqes?: ZebraErrorQuery;
}

/**
 * Status from what a Zebra answered. Without a ~HS answer the printer is never
 * "ready": attention when ~HQES names an error or when this printer answered ~HS before
 * (it falls silent exactly when out of media or ribbon, or with the head open), else unknown.
 */
export function zebraStatus(reply: ZebraReply, answeredBefore = false, checkedAt = new Date()): PrinterStatus {
  const reasons = sortReasons([...(reply.hs ? hsReasons(reply.hs) : []), ...(reply.hqes ? hqesReasons(reply.hqes) : [])]);
  const warnings = reply.hqes ? WARNING_WORDS.filter(([bit]) => reply.hqes!.warnings & bit).map(([, w]) => w) : [];
  const detail = warnings.length ? warnings.join('. ') : undefined;
  if (reply.hs) {
    const busy = reply.hs.formatsInBuffer > 0 || reply.hs.labelsRemaining > 0 || reply.hs.partialFormat;
    return buildStatus(needsPerson(reasons) ? 'attention' : busy ? 'printing' : 'ready', reasons, null, checkedAt, detail);
  }
  if (needsPerson(reasons)) return buildStatus('attention', reasons, null, checkedAt, detail);
  if (answeredBefore) {
    return buildStatus(
      'attention',
      sortReasons([...reasons, 'other']),
      null,
      checkedAt,
      'The printer stopped answering its host status (~HS), as Zebra printers do when out of labels or ribbon, or with the print head open',
    );
  }
  return unknownStatus(
    reply.hqes
      ? 'the printer reports no errors (~HQES) but did not answer its host status (~HS)'
      : 'the printer accepts connections but did not answer ~HS: not a Zebra, or stopped (out of labels or ribbon, head open)',
    checkedAt,
  );
}

export interface ZebraStatusTarget {
  host: string;
  port: number;
  /** How long to wait for the answers once asked (default 1500 ms). */
  replyTimeoutMs?: number;
  /** How long to wait for the connection (default 3000 ms). */
  connectTimeoutMs?: number;
}

/**
 * Asks a Zebra on its raw port. Never rejects: refused, unreachable or no connection in
 * time is offline; a connection that answers nothing is judged by zebraStatus.
 * `answeredBefore`: whether this printer has answered ~HS before (the caller keeps it).
 */
export async function readZebraStatus(
  target: ZebraStatusTarget,
  signal: AbortSignal,
  answeredBefore = false,
): Promise<{ status: PrinterStatus; answeredHostStatus: boolean }> {
  const result = await queryZebra(target, signal);
  if (!result.connected) return { status: offlineStatus(`${target.host}:${target.port} ${result.error}`), answeredHostStatus: false };
  const hs = parseHostStatus(result.text);
  return { status: zebraStatus({ hs, hqes: parseErrorQuery(result.text) }, answeredBefore), answeredHostStatus: hs !== undefined };
}

interface QueryResult {
  connected: boolean;
  text: string;
  error?: string;
}

/** Sends ~HS~HQES and collects the answer until the ~HQES block is in, the time is up or the printer closes. */
export function queryZebra(target: ZebraStatusTarget, signal: AbortSignal): Promise<QueryResult> {
  const replyMs = target.replyTimeoutMs ?? 1500;
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ connected: false, text: '', error: 'not asked: aborted' });
    const socket = connect({ host: target.host, port: target.port });
    let connected = false;
    let text = '';
    let timer = setTimeout(() => finish('did not accept a connection in time'), target.connectTimeoutMs ?? 3000);
    let done = false;
    function finish(error?: string): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(connected ? { connected, text } : { connected, text, error: error ?? 'closed the connection' });
    }
    const onAbort = (): void => finish('did not accept a connection in time');
    signal.addEventListener('abort', onAbort, { once: true });
    socket.setEncoding('latin1');
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    socket.on('close', () => finish());
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 64 * 1024) return finish(); // not a status answer
      if (parseErrorQuery(text)) return finish(); // ~HQES came after ~HS (or instead of it)
      if (parseHostStatus(text) && stxBlocks(text).length >= 3) {
        // A printer without ~HQES: give it a moment, then go with ~HS alone.
        clearTimeout(timer);
        timer = setTimeout(() => finish(), Math.min(300, replyMs));
      }
    });
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      timer = setTimeout(() => finish(), replyMs);
      socket.write(ZEBRA_STATUS_QUERY, 'latin1');
    });
  });
}
