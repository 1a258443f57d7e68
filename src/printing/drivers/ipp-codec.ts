/**
 * IPP message encoding (RFC 8010 §3): just what a print client needs. A
 * message is version, operation/status code, request id, then attribute
 * groups of (value tag, name, value) entries; a name of length 0 adds another
 * value to the previous attribute; tag 0x03 ends the attributes and the
 * document data follows.
 */

export const TAG = {
  operation: 0x01,
  job: 0x02,
  end: 0x03,
  printer: 0x04,
  unsupported: 0x05,
  integer: 0x21,
  boolean: 0x22,
  enum: 0x23,
  octetString: 0x30,
  dateTime: 0x31,
  resolution: 0x32,
  rangeOfInteger: 0x33,
  begCollection: 0x34,
  textWithLanguage: 0x35,
  nameWithLanguage: 0x36,
  endCollection: 0x37,
  text: 0x41,
  name: 0x42,
  keyword: 0x44,
  uri: 0x45,
  charset: 0x47,
  naturalLanguage: 0x48,
  mimeMediaType: 0x49,
  memberAttrName: 0x4a,
} as const;

export const OP = { printJob: 0x0002, getJobs: 0x000a, getPrinterAttributes: 0x000b } as const;

/** job-state values (RFC 8011 §5.3.7). */
export const JOB_STATE = { pending: 3, pendingHeld: 4, processing: 5, processingStopped: 6, canceled: 7, aborted: 8, completed: 9 } as const;

export type IppValue =
  | string
  | number
  | boolean
  | { x: number; y: number; units: 'dpi' | 'dpcm' }
  | { lower: number; upper: number }
  | IppCollection
  | Buffer
  | null; // out-of-band (unsupported, unknown, no-value)
export interface IppCollection {
  [member: string]: IppValue[];
}

export interface IppGroup {
  tag: number;
  attributes: Map<string, IppValue[]>;
}

export interface IppResponse {
  version: string;
  statusCode: number;
  requestId: number;
  groups: IppGroup[];
}

/** An attribute to send: tag, name and one or more string/integer values. */
export interface OutAttribute {
  tag: number;
  name: string;
  values: (string | number)[];
}

export function encodeRequest(op: number, requestId: number, operationAttrs: OutAttribute[], data?: Buffer): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x0101, 0); // IPP/1.1: every IPP printer and CUPS understands it
  head.writeUInt16BE(op, 2);
  head.writeUInt32BE(requestId, 4);
  parts.push(head, Buffer.from([TAG.operation]));
  for (const a of operationAttrs) {
    a.values.forEach((v, i) => {
      const name = Buffer.from(i === 0 ? a.name : '', 'utf8');
      let value: Buffer;
      if (typeof v === 'number') {
        value = Buffer.alloc(4);
        value.writeInt32BE(v);
      } else value = Buffer.from(v, 'utf8');
      const h = Buffer.alloc(3);
      h[0] = a.tag;
      h.writeUInt16BE(name.length, 1);
      const l = Buffer.alloc(2);
      l.writeUInt16BE(value.length);
      parts.push(h, name, l, value);
    });
  }
  parts.push(Buffer.from([TAG.end]));
  if (data) parts.push(data);
  return Buffer.concat(parts);
}

/** Parses a response's header and attribute groups; document data after them is ignored. */
export function decodeResponse(buf: Buffer): IppResponse {
  if (buf.length < 9) throw new Error(`IPP response too short (${buf.length} bytes)`);
  const r = new Reader(buf);
  const major = r.u8(), minor = r.u8();
  const statusCode = r.u16();
  const requestId = r.u32();
  const groups: IppGroup[] = [];
  let group: IppGroup | undefined;
  let last: IppValue[] | undefined;
  for (;;) {
    const tag = r.u8();
    if (tag === TAG.end) break;
    if (tag < 0x10) {
      group = { tag, attributes: new Map() };
      groups.push(group);
      last = undefined;
      continue;
    }
    const name = r.str(r.u16());
    const value = decodeValue(tag, r);
    if (!group) throw new Error('IPP response has an attribute outside any group');
    if (name) {
      last = [value];
      group.attributes.set(name, last);
    } else if (last) last.push(value);
    else throw new Error('IPP response has an additional value without an attribute');
  }
  return { version: `${major}.${minor}`, statusCode, requestId, groups };
}

function decodeValue(tag: number, r: Reader): IppValue {
  if (tag === TAG.begCollection) {
    r.skip(r.u16()); // begCollection's own value is empty
    return decodeCollection(r);
  }
  const len = r.u16();
  const v = r.bytes(len);
  if (tag >= 0x10 && tag <= 0x1f) return null;
  switch (tag) {
    case TAG.integer:
    case TAG.enum:
      return len === 4 ? v.readInt32BE(0) : 0;
    case TAG.boolean:
      return v[0] === 1;
    case TAG.resolution:
      return { x: v.readInt32BE(0), y: v.readInt32BE(4), units: v[8] === 4 ? 'dpcm' : 'dpi' };
    case TAG.rangeOfInteger:
      return { lower: v.readInt32BE(0), upper: v.readInt32BE(4) };
    case TAG.textWithLanguage:
    case TAG.nameWithLanguage: {
      // language length + language + text length + text: keep the text only.
      const langLen = v.readUInt16BE(0);
      return v.toString('utf8', 4 + langLen);
    }
    case TAG.octetString:
    case TAG.dateTime:
      return Buffer.from(v);
    default:
      return v.toString('utf8'); // text, name, keyword, uri, charset, language, mime type...
  }
}

/** Members follow begCollection as memberAttrName (name-less) + value pairs, until endCollection. */
function decodeCollection(r: Reader): IppCollection {
  const out: IppCollection = {};
  let member: IppValue[] | undefined;
  for (;;) {
    const tag = r.u8();
    const name = r.str(r.u16());
    if (name) throw new Error(`IPP collection member has a name (${name})`);
    if (tag === TAG.endCollection) {
      r.skip(r.u16());
      return out;
    }
    if (tag === TAG.memberAttrName) {
      member = [];
      out[r.str(r.u16())] = member;
      continue;
    }
    if (!member) throw new Error('IPP collection value without a member name');
    member.push(decodeValue(tag, r));
  }
}

class Reader {
  private p = 0;
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.p + n > this.buf.length) throw new Error('IPP response is truncated');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.p++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.p);
    this.p += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.p);
    this.p += 4;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.p, this.p + n);
    this.p += n;
    return v;
  }
  str(n: number): string {
    return this.bytes(n).toString('utf8');
  }
  skip(n: number): void {
    this.bytes(n);
  }
}

/** RFC 8011 §4.1.6 / PWG 5100 status codes, for readable errors. */
const STATUS: Record<number, string> = {
  0x0000: 'successful-ok',
  0x0001: 'successful-ok-ignored-or-substituted-attributes',
  0x0002: 'successful-ok-conflicting-attributes',
  0x0400: 'client-error-bad-request',
  0x0401: 'client-error-forbidden',
  0x0402: 'client-error-not-authenticated',
  0x0403: 'client-error-not-authorized',
  0x0404: 'client-error-not-possible',
  0x0405: 'client-error-timeout',
  0x0406: 'client-error-not-found',
  0x0407: 'client-error-gone',
  0x0408: 'client-error-request-entity-too-large',
  0x0409: 'client-error-request-value-too-long',
  0x040a: 'client-error-document-format-not-supported',
  0x040b: 'client-error-attributes-or-values-not-supported',
  0x040c: 'client-error-uri-scheme-not-supported',
  0x040d: 'client-error-charset-not-supported',
  0x040e: 'client-error-conflicting-attributes',
  0x040f: 'client-error-compression-not-supported',
  0x0410: 'client-error-compression-error',
  0x0411: 'client-error-document-format-error',
  0x0412: 'client-error-document-access-error',
  0x0500: 'server-error-internal-error',
  0x0501: 'server-error-operation-not-supported',
  0x0502: 'server-error-service-unavailable',
  0x0503: 'server-error-version-not-supported',
  0x0504: 'server-error-device-error',
  0x0505: 'server-error-temporary-error',
  0x0506: 'server-error-not-accepting-jobs',
  0x0507: 'server-error-busy',
  0x0508: 'server-error-job-canceled',
  0x0509: 'server-error-multiple-document-jobs-not-supported',
};

/** Errors where sending the same request again cannot succeed. */
const PERMANENT = new Set([0x0400, 0x0408, 0x0409, 0x040a, 0x040b, 0x040c, 0x040d, 0x040e, 0x040f, 0x0411, 0x0501, 0x0503]);

export function statusName(code: number): string {
  return STATUS[code] ?? `status 0x${code.toString(16).padStart(4, '0')}`;
}

export function isSuccess(code: number): boolean {
  return code <= 0x00ff;
}

export function isPermanentStatus(code: number): boolean {
  return PERMANENT.has(code);
}
