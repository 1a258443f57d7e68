/**
 * A Zebra ZPL printer on loopback, built on the raw TCP sink (tcp-sink.ts): it takes
 * print jobs like any port-9100 printer and answers the two status commands byte for
 * byte as Zebra's ZPL Programming Guide (docs.zebra.com) documents them:
 *
 *   ~HS   three strings, each <STX>…<ETX><CR><LF>:
 *         aaa,b,c,dddd,eee,f,g,h,iii,j,k,l   (b paper out, c pause, dddd label length in dots,
 *                                             eee formats in buffer, …, l over temperature)
 *         mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www  (o head up, p ribbon out, q thermal transfer,
 *                                             r print mode, uuuuuuuu labels remaining, v always 1)
 *         xxxx,y                             (password, static RAM)
 *   ~HQES one <STX>…<ETX> block: PRINTER STATUS / ERRORS: f 00000000 hhhhhhhh /
 *         WARNINGS: f 00000000 hhhhhhhh, flags as in the guide's ~WQ tables (nibble 1 =
 *         last digit: 1 media out, 2 ribbon out, 4 head open, 8 cutter fault; warning 8 paper near end).
 *
 * Silence as the guide describes it: "the printer will not send a response to the host
 * if the printer is in one of these conditions: MEDIA OUT, RIBBON OUT, HEAD OPEN,
 * REWINDER FULL, HEAD OVER-TEMPERATURE" (~HS). `hostStatus: 'always'` answers anyway,
 * as older firmware does (ZPL II Programming Guide 45541L-004 has no such note);
 * 'never' answers no ~HS at all, and `errorQuery: false` ignores ~HQES.
 */
import { startTcpSink, type SinkMode, type TcpSink } from './tcp-sink.js';

export interface ZebraState {
  paperOut: boolean;
  paused: boolean;
  headOpen: boolean;
  ribbonOut: boolean;
  overTemperature: boolean;
  paperNearEnd: boolean;
  /** Formats waiting in the receive buffer and labels left in the batch: the printer is busy. */
  formatsInBuffer: number;
  labelsRemaining: number;
  labelLengthDots: number;
  /** 'documented': silent on ~HS when out of media or ribbon, head open or too hot. */
  hostStatus: 'documented' | 'always' | 'never';
  errorQuery: boolean;
}

export interface ZebraPeer {
  host: string;
  port: number;
  /** socket://127.0.0.1:PORT?lang=zpl */
  uri: string;
  sink: TcpSink;
  state: ZebraState;
  set(change: Partial<ZebraState>): void;
  /** ~HS and ~HQES commands seen so far. */
  readonly queries: { hs: number; hqes: number };
  close(): Promise<void>;
}

const STX = '\x02';
const ETX = '\x03';
const CRLF = '\r\n';

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const bit = (b: boolean): string => (b ? '1' : '0');

/** The ~HS answer for a state, exactly as the guide lays it out. */
export function hostStatusReply(s: ZebraState): string {
  // String 1: aaa (comms settings 030: 9600 baud 8N1 as in the guide's example), b, c, dddd, eee, f, g, h, iii (000), j, k, l.
  const one = ['030', bit(s.paperOut), bit(s.paused), pad(s.labelLengthDots, 4), pad(s.formatsInBuffer, 3), '0', '0', '0', '000', '0', '0', bit(s.overTemperature)].join(',');
  // String 2: mmm (function settings), n (unused), o, p, q (thermal transfer: 1), r (print mode 2: tear-off), s (print width mode), t, uuuuuuuu, v (1), www.
  const two = ['001', '0', bit(s.headOpen), bit(s.ribbonOut), '1', '2', '6', '0', pad(s.labelsRemaining, 8), '1', '000'].join(',');
  // String 3: xxxx password, y static RAM installed.
  const three = ['1234', '0'].join(',');
  return [one, two, three].map((x) => `${STX}${x}${ETX}${CRLF}`).join('');
}

/** The ~HQES answer for a state. */
export function errorQueryReply(s: ZebraState): string {
  const errors = (s.paperOut ? 0x1 : 0) | (s.ribbonOut ? 0x2 : 0) | (s.headOpen ? 0x4 : 0) | (s.overTemperature ? 0x10 : 0);
  const warnings = s.paperNearEnd ? 0x8 : 0;
  const hex = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');
  return (
    `${STX}${CRLF}${CRLF}  PRINTER STATUS${CRLF}` +
    `   ERRORS:         ${errors ? 1 : 0} 00000000 ${hex(errors)}${CRLF}` +
    `   WARNINGS:       ${warnings ? 1 : 0} 00000000 ${hex(warnings)}${CRLF}` +
    `${ETX}${CRLF}`
  );
}

const READY: ZebraState = {
  paperOut: false,
  paused: false,
  headOpen: false,
  ribbonOut: false,
  overTemperature: false,
  paperNearEnd: false,
  formatsInBuffer: 0,
  labelsRemaining: 0,
  labelLengthDots: 1218,
  hostStatus: 'documented',
  errorQuery: true,
};

const COMMAND = /~(HQES|HS)/g;

export async function startZebraPeer(initial: Partial<ZebraState> = {}, mode: SinkMode = 'accept', port = 0): Promise<ZebraPeer> {
  const state: ZebraState = { ...READY, ...initial };
  const queries = { hs: 0, hqes: 0 };
  const silentOnHs = (): boolean =>
    state.hostStatus === 'never' || (state.hostStatus === 'documented' && (state.paperOut || state.ribbonOut || state.headOpen || state.overTemperature));
  const sink = await startTcpSink(mode, port, {
    respond: () => {
      let pending = ''; // a command split across reads
      return (chunk) => {
        pending += chunk.toString('latin1');
        let answer = '';
        let consumed = 0;
        COMMAND.lastIndex = 0;
        for (let m = COMMAND.exec(pending); m; m = COMMAND.exec(pending)) {
          consumed = m.index + m[0].length;
          if (m[1] === 'HS') {
            queries.hs++;
            if (!silentOnHs()) answer += hostStatusReply(state);
          } else {
            queries.hqes++;
            if (state.errorQuery) answer += errorQueryReply(state);
          }
        }
        pending = pending.slice(Math.max(consumed, pending.length - 4)); // keep a possible partial "~HQE"
        return answer ? Buffer.from(answer, 'latin1') : undefined;
      };
    },
    isJob: (bytes) => bytes.toString('latin1').replace(COMMAND, '').trim().length > 0,
  });
  return {
    host: sink.host,
    port: sink.port,
    uri: `socket://${sink.host}:${sink.port}?lang=zpl`,
    sink,
    state,
    set(change) {
      Object.assign(state, change);
    },
    queries,
    close: () => sink.close(),
  };
}
