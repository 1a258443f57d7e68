/**
 * A networked Brother QL on loopback, as the real ones behave: a raw TCP port that
 * takes QL raster and answers nothing (tcp-sink.ts; brother_ql's README: the network
 * backend "doesn't support reading back the printer state"), and an SNMP agent
 * (net-snmp createAgent, SNMPv1/v2c, community "public") that publishes the 32-byte
 * status reply at Brother's OID 1.3.6.1.4.1.2435.3.3.9.1.6.1.0, whose value "is the same
 * as the return value of the status request" (Brother Developer Center, "FAQ: Command
 * Reference"). The reply is built byte for byte from the status table of Brother's
 * Raster Command Reference as pklaus/brother_ql reader.py decodes it:
 *   0-2 80 20 42 · 3 series (34: QL-800 family) · 4 model · 5 30 · 8 error information 1 ·
 *   9 error information 2 · 10 media width (mm) · 11 media type (0A continuous, 0B die-cut,
 *   00 none) · 14 23 on the red/black roll (undocumented; matmair/brother_ql-inventree cli.py) ·
 *   17 media length (mm) · 18 status type · 19 phase (01 printing) · 22 notification (01 cover open).
 * Everything can be changed while it runs.
 *
 * Jobs (nextPrint) are decoded as the printer reads them (test/printing/decoders.ts
 * parseQlRaster): a two-colour job (ESC i K bit 0; `77 01 nn` black then `77 02 nn` red
 * for every line, as pklaus/brother_ql raster.py and LPrint's BROTHER.md describe it)
 * gives its red plane too. With the red/black roll loaded a black-only job is refused and
 * nothing prints, as the printers do (brother_ql issues #52, #58, #148; PR #22); the error
 * bit for it is not published, so the peer sets "replace media" (error information 2 bit 0,
 * Brother's media-mismatch bit). What a two-colour job does on a black-only roll is not
 * documented either: the peer prints its planes and says so (`refused` false).
 */
import { createSocket } from 'node:dgram';
import snmp from 'net-snmp';
import { parseQlRaster, type QlJob } from '../printing/decoders.js';
import { startTcpSink, type TcpSink } from './tcp-sink.js';

export const QL_STATUS_OID = '1.3.6.1.4.1.2435.3.3.9.1.6.1.0';

/** Model codes (byte 4) from Brother's references as matmair/brother_ql-inventree models.py and LPrint's BROTHER.md list them. */
export const QL_MODEL_CODES = { 'QL-800': 0x38, 'QL-810W': 0x39, 'QL-820NWB': 0x41 } as const;

/** Error information 1 (byte 8) and 2 (byte 9) bits. */
export const QL_ERROR_1 = { noMedia: 0x01, endOfMedia: 0x02, cutterJam: 0x04, unitInUse: 0x10, turnedOff: 0x20, fan: 0x80 } as const;
export const QL_ERROR_2 = { replaceMedia: 0x01, expansionBufferFull: 0x02, transmission: 0x04, coverOpen: 0x10, overheating: 0x20, cannotFeed: 0x40, system: 0x80 } as const;

export interface QlPeerState {
  model: keyof typeof QL_MODEL_CODES;
  media: 'continuous' | 'die-cut' | 'none';
  widthMm: number;
  /** Label length (die-cut); 0 on continuous tape. */
  lengthMm: number;
  /** The red/black DK-22251 roll: byte 14 = 0x23. */
  twoColour: boolean;
  errors1: number;
  errors2: number;
  printing: boolean;
  /** Byte 22: 1 cover open, 2 cover closed. */
  notification: number;
}

/** The 32 bytes for a state. */
export function qlStatusBytes(s: QlPeerState): Buffer {
  const b = Buffer.alloc(32);
  b[0] = 0x80;
  b[1] = 0x20; // size: 32
  b[2] = 0x42; // 'B'
  b[3] = 0x34; // QL series
  b[4] = QL_MODEL_CODES[s.model];
  b[5] = 0x30;
  b[8] = s.errors1;
  b[9] = s.errors2;
  b[10] = s.media === 'none' ? 0 : s.widthMm;
  b[11] = s.media === 'continuous' ? 0x0a : s.media === 'die-cut' ? 0x0b : 0x00;
  b[14] = s.twoColour ? 0x23 : 0x00;
  b[17] = s.media === 'die-cut' ? s.lengthMm : 0;
  b[18] = s.errors1 || s.errors2 ? 0x02 : 0x00; // error occurred / reply to status request
  b[19] = s.printing ? 0x01 : 0x00;
  b[22] = s.notification;
  return b;
}

/** One job as the printer received it. */
export interface QlPrint {
  job: QlJob;
  /** Refused (nothing printed): a black-only job on the red/black roll. */
  refused: boolean;
}

export interface QlPeer {
  host: string;
  /** The raw (9100-style) port: a silent raster sink. */
  rawPort: number;
  snmpPort: number;
  /** socket://127.0.0.1:RAW?lang=brother-ql&model=…&snmp-port=SNMP */
  uri: string;
  sink: TcpSink;
  state: QlPeerState;
  /** The next job received, decoded (90-byte rows: the QL-800 family), refused or printed by the loaded roll. */
  nextPrint(): Promise<QlPrint>;
  set(change: Partial<QlPeerState>): void;
  /** Replace the reply with these exact bytes (a recorded one); undefined goes back to the state's. */
  setReply(bytes: Buffer | undefined): void;
  /** SNMP GETs answered so far. */
  readonly snmpRequests: number;
  /** Stop the SNMP agent (SNMP switched off) while the raw port stays up. */
  stopSnmp(): Promise<void>;
  close(): Promise<void>;
}

const DK_22205: QlPeerState = { model: 'QL-820NWB', media: 'continuous', widthMm: 62, lengthMm: 0, twoColour: false, errors1: 0, errors2: 0, printing: false, notification: 0 };

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Agent {
  getMib(): { registerProvider(p: unknown): void; setScalarValue(name: string, v: unknown): void };
  getAuthorizer(): { addCommunity(c: string): void };
  close(cb?: () => void): void;
  listener: { sockets: Record<string, import('node:dgram').Socket> };
}

/** An SNMP agent on a free loopback UDP port (net-snmp cannot bind port 0: it takes 0 as "default", 161). */
async function startAgent(): Promise<{ agent: Agent; port: number }> {
  // A free port may be taken between the probe and the agent's bind: try again then.
  for (let attempt = 1; ; attempt++) {
    const port = await freeUdpPort();
    const errors: Error[] = [];
    const agent = snmp.createAgent({ port, address: '127.0.0.1', transport: 'udp4' }, (error: Error | null) => {
      if (error) errors.push(error);
    }) as Agent;
    const socket = Object.values(agent.listener.sockets)[0]!;
    const up = await new Promise<boolean>((resolve) => {
      socket.once('listening', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    if (up) return { agent, port };
    try {
      agent.close();
    } catch {
      // never bound: nothing to close
    }
    if (attempt >= 5) throw new Error(`SNMP agent: cannot bind (${errors[0]?.message ?? 'unknown'})`);
  }
}

export async function startQlPeer(initial: Partial<QlPeerState> = {}): Promise<QlPeer> {
  const state: QlPeerState = { ...DK_22205, ...initial };
  let fixed: Buffer | undefined;
  let requests = 0;
  const sink = await startTcpSink('accept');
  const { agent, port: snmpPort } = await startAgent();
  agent.getAuthorizer().addCommunity('public');
  const mib = agent.getMib();
  mib.registerProvider({
    name: 'brStatus',
    type: snmp.MibProviderType.Scalar,
    oid: QL_STATUS_OID.replace(/\.0$/, ''),
    scalarType: snmp.ObjectType.OctetString,
    maxAccess: snmp.MaxAccess['read-only'],
    handler: (req: { instanceNode: { value: unknown }; done(): void }) => {
      requests++;
      req.instanceNode.value = fixed ?? qlStatusBytes(state);
      req.done();
    },
  });
  mib.setScalarValue('brStatus', qlStatusBytes(state));
  let agentUp = true;
  const stopSnmp = async (): Promise<void> => {
    if (!agentUp) return;
    agentUp = false;
    await new Promise<void>((resolve) => agent.close(() => resolve()));
  };
  return {
    host: sink.host,
    rawPort: sink.port,
    snmpPort,
    uri: `socket://${sink.host}:${sink.port}?lang=brother-ql&model=${state.model}&snmp-port=${snmpPort}`,
    sink,
    state,
    async nextPrint() {
      const job = parseQlRaster(await sink.nextJob());
      const refused = state.twoColour && !job.twoColour;
      if (refused) Object.assign(state, { errors2: state.errors2 | QL_ERROR_2.replaceMedia });
      return { job, refused };
    },
    set(change) {
      Object.assign(state, change);
    },
    setReply(bytes) {
      fixed = bytes;
    },
    get snmpRequests() {
      return requests;
    },
    stopSnmp,
    async close() {
      await stopSnmp();
      await sink.close();
    },
  };
}
