/**
 * Brother QL status: the 32-byte status reply, and reading it from a networked QL.
 *
 * The reply (answer to ESC i S, and the printer's own notifications) starts 80 20 42;
 * the offsets below are those of pklaus/brother_ql brother_ql/reader.py
 * (`interpret_response`, RESP_ERROR_INFORMATION_1_DEF/_2_DEF, RESP_BYTE_NAMES) and
 * Brother's "Raster Command Reference" status information table:
 *   8 error information 1, 9 error information 2 (bit fields), 10 media width (mm),
 *   11 media type (0x0A continuous, 0x0B die-cut, 0x00 none; the manuals also list
 *   0x4A/0x4B), 17 media length (mm, 0 on continuous tape; 13 is its high byte on
 *   models with longer labels), 18 status type, 19 phase (0 receiving, 1 printing),
 *   22 notification (1 cover open).
 * Byte 14 is undocumented; 0x23 there is read as the red/black DK-22251 roll, as the
 * maintained fork matmair/brother_ql-inventree does (brother_ql/cli.py `status_cmd`),
 * because width and type alone cannot tell it from DK-22205 (both say 62 mm continuous).
 * A heuristic: configuration may override it.
 *
 * Over the network a QL does not answer ESC i S on its raw port 9100 (brother_ql's
 * README: the network backend "doesn't support reading back the printer state");
 * Brother publishes the same 32 bytes as an SNMP value instead: OID
 * 1.3.6.1.4.1.2435.3.3.9.1.6.1.0, "the same as the return value of the status request"
 * (Brother Developer Center, "FAQ: Command Reference", support.brother.com/g/s/es/dev/en/command/faq/).
 * So the reader asks over SNMPv1 (UDP 161, community `public` unless configured).
 */
import { connect } from 'node:net';
import snmp from 'net-snmp';
import { buildStatus, mediaDescription, needsPerson, offlineStatus, sortReasons, unknownStatus, type StatusMedia, type StatusReason } from './compose.js';
import { partNumber, qlStocks, sizeWords, TWO_COLOUR_PART } from './stocks.js';
import type { PrinterStatus } from './types.js';

export const QL_STATUS_OID = '1.3.6.1.4.1.2435.3.3.9.1.6.1.0';

/** Error information 1 (byte 8), bit by bit. */
const ERROR_1: Record<number, StatusReason | null> = {
  0: 'media-empty', // no media when printing
  1: 'media-empty', // end of media (die-cut)
  2: 'cutter-jam',
  3: 'other', // weak batteries
  4: null, // main unit in use (QL-560/650TD/1050): busy, not wrong
  5: 'offline', // printer turned off
  6: 'other', // high-voltage adapter
  7: 'overheated', // fan does not work (QL-1050/1060N)
};

/** Error information 2 (byte 9), bit by bit. */
const ERROR_2: Record<number, StatusReason | null> = {
  0: 'wrong-media', // replace media: the loaded roll is not the one the job asked for
  1: 'other', // expansion buffer full
  2: 'other', // transmission / communication error
  3: 'other', // communication buffer full
  4: 'cover-open', // cover opened
  5: 'overheated', // cancel key / overheating
  6: 'media-jam', // media cannot be fed (also at the end of the media: then media-empty is set too)
  7: 'other', // system error
};

const MEDIA_CONTINUOUS = new Set([0x0a, 0x4a]);
const MEDIA_DIE_CUT = new Set([0x0b, 0x4b]);

/** The fields of a status reply that status needs. */
export interface QlStatusReply {
  errors1: number;
  errors2: number;
  widthMm: number;
  mediaType: number;
  lengthMm: number;
  /** Byte 14 (undocumented): 0x23 on the red/black roll. */
  mediaSensor: number;
  statusType: number;
  phase: number;
  notification: number;
}

export function decodeQlStatus(bytes: Uint8Array): QlStatusReply {
  if (bytes.length < 32 || bytes[0] !== 0x80 || bytes[1] !== 0x20 || bytes[2] !== 0x42) {
    throw new Error(`not a Brother QL status reply (${bytes.length} bytes: ${Buffer.from(bytes.subarray(0, 4)).toString('hex')}…)`);
  }
  const b = (i: number): number => bytes[i]!;
  return {
    errors1: b(8),
    errors2: b(9),
    widthMm: b(10),
    mediaType: b(11),
    lengthMm: (b(13) << 8) | b(17),
    mediaSensor: b(14),
    statusType: b(18),
    phase: b(19),
    notification: b(22),
  };
}

/** A status reply as PrinterStatus. Throws on bytes that are not a status reply. */
export function qlStatusFromReply(bytes: Uint8Array, checkedAt = new Date()): PrinterStatus {
  const r = decodeQlStatus(bytes);
  const reasons: StatusReason[] = [];
  for (let bit = 0; bit < 8; bit++) {
    const one = r.errors1 & (1 << bit) ? ERROR_1[bit] : null;
    const two = r.errors2 & (1 << bit) ? ERROR_2[bit] : null;
    if (one) reasons.push(one);
    if (two) reasons.push(two);
  }
  // "Media cannot be fed" is also set at the end of the roll: then it is not a jam.
  if (reasons.includes('media-jam') && reasons.includes('media-empty')) reasons.splice(reasons.indexOf('media-jam'), 1);
  if (r.notification === 0x01) reasons.push('cover-open');
  if (r.statusType === 0x02 && reasons.length === 0) reasons.push('other'); // an error reply without error bits
  if (r.statusType === 0x04) reasons.push('offline'); // turned off

  const continuous = MEDIA_CONTINUOUS.has(r.mediaType);
  const dieCut = MEDIA_DIE_CUT.has(r.mediaType);
  let media: StatusMedia | null = null;
  if ((continuous || dieCut) && r.widthMm > 0) {
    const lengthMm = continuous ? 0 : r.lengthMm;
    const red = r.mediaSensor === 0x23;
    const stocks = qlStocks(r.widthMm, lengthMm, red);
    const part = red ? TWO_COLOUR_PART : stocks.map(partNumber).find((p) => p !== undefined);
    const words = { what: sizeWords(r.widthMm, lengthMm, red), ...(part ? { part } : {}) };
    media = {
      info: { description: mediaDescription(words), widthMm: r.widthMm, lengthMm, red, stocks: stocks.map((s) => s.name) },
      words,
    };
  } else if (!reasons.includes('media-empty')) {
    reasons.push('media-empty'); // no roll in the printer
  }

  const sorted = sortReasons(reasons);
  const state = sorted.includes('offline') ? 'offline' : needsPerson(sorted) ? 'attention' : r.phase === 0x01 ? 'printing' : 'ready';
  return buildStatus(state, sorted, media, checkedAt);
}

export interface QlStatusTarget {
  host: string;
  /** The printer's raw port (9100): asked only to tell "SNMP is off" from "switched off". */
  rawPort: number;
  snmpPort?: number;
  community?: string;
  /** How long one SNMP request waits for its answer (default 1000 ms, then one retry). */
  timeoutMs?: number;
}

/**
 * Asks a networked QL for its status over SNMP. Never rejects: no answer is offline
 * (or unknown when the raw port answers but SNMP does not: SNMP switched off).
 */
export async function readQlStatus(target: QlStatusTarget, signal: AbortSignal): Promise<PrinterStatus> {
  const where = `${target.host} (SNMP port ${target.snmpPort ?? 161})`;
  let value: Buffer;
  try {
    value = await snmpGet(target, QL_STATUS_OID, signal);
  } catch (e) {
    const err = e as Error;
    if (err instanceof snmp.RequestFailedError || err instanceof NoStatusValue) {
      // The agent answered, without this value (noSuchName): a model that does not publish it.
      return unknownStatus(`the printer at ${where} answers SNMP but does not publish the Brother status (${err.message})`);
    }
    if (!signal.aborted && (await accepts(target.host, target.rawPort, signal))) {
      return unknownStatus(`the printer at ${target.host} accepts print jobs on port ${target.rawPort} but does not answer SNMP (community "${target.community ?? 'public'}"): switch SNMP on in its web settings`);
    }
    return offlineStatus(`no answer from ${where}: ${err.message}`);
  }
  try {
    return qlStatusFromReply(value);
  } catch (e) {
    return unknownStatus(`the printer at ${where} sent ${(e as Error).message}`);
  }
}

/** The agent answered, but without the value (SNMPv2 style errors, or another type). */
class NoStatusValue extends Error {
  override readonly name = 'NoStatusValue';
}

function snmpGet(target: QlStatusTarget, oid: string, signal: AbortSignal): Promise<Buffer> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  const session = snmp.createSession(target.host, target.community ?? 'public', {
    port: target.snmpPort ?? 161,
    version: snmp.Version1,
    timeout: target.timeoutMs ?? 1000,
    retries: 1,
  });
  return new Promise<Buffer>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, value?: Buffer): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      session.close();
      if (err) reject(err);
      else resolve(value!);
    };
    const onAbort = (): void => finish(new Error(signal.reason instanceof Error ? signal.reason.message : 'aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    session.on('error', (e: Error) => finish(e));
    session.get([oid], (error, varbinds) => {
      if (error) return finish(error);
      const vb = varbinds?.[0];
      if (!vb || snmp.isVarbindError(vb)) return finish(new NoStatusValue(vb ? snmp.varbindError(vb) : 'empty response'));
      const v = vb.value as unknown;
      if (!Buffer.isBuffer(v)) return finish(new NoStatusValue(`${oid} is not an OCTET STRING`));
      finish(null, v);
    });
  });
}

/** Whether something accepts a TCP connection on host:port (closed again at once, nothing sent). */
function accepts(host: string, port: number, signal: AbortSignal, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(ok);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
