/**
 * Request bodies: the one reader, used by the server and the mock (through
 * spec-router.ts), so both refuse the same bodies alike. What an operation takes
 * is read from the spec: its media types (`requestBody.content`) and its size
 * limit (`x-max-body-bytes` on the operation; MAX_BODY_BYTES when absent).
 *
 * - another media type: 415 (before a byte is read);
 * - larger than the limit: 413, as soon as it is (declared or counted);
 * - JSON that does not parse: a 400 once the credentials are checked (the
 *   router's validationFail reads `res.locals.bodyNotJson`);
 * - form fields (application/x-www-form-urlencoded) become an object of strings
 *   (PHP-style `a[b]=` fields, which carry nested data, are left out);
 * - images stay bytes;
 * - an operation with `x-body-fields: declared` keeps only the top-level fields its
 *   body schema declares (Grocy's webhook: its `details` carries whole pictures and
 *   recipes): JSON and form bodies are parsed as they arrive and every other field
 *   is discarded as it streams past, so a large body holds at most the one value
 *   being read, never the body;
 * - an operation with `x-body-stream: true` (upsertRecords) is not read here: its
 *   handler reads the request as a stream (res.locals.bodyStream, counted against
 *   the limit by `limitedBody`), so a body of any size is never held whole.
 */
import type { Request, Response } from 'express';
import { ProblemError } from '../errors.js';
import { sendProblem } from './problems.js';

class HttpProblemLike extends ProblemError {
  constructor(slug: 'payload-too-large', detail: string) {
    super(slug, detail, { headers: { Connection: 'close' } });
  }
}

/** The default body limit: a template with its logo as base64. */
export const MAX_BODY_BYTES = 600 * 1024;

export interface BodyRule {
  /** Media types the operation takes, lower case, without parameters. */
  types: string[];
  /** Largest body in bytes. */
  maxBytes: number;
  /** Only these top-level fields are kept (JSON and form bodies), read as the body streams (`x-body-fields: declared`). */
  fields?: ReadonlySet<string>;
  /** The handler reads the body as a stream (`x-body-stream: true`). */
  stream?: boolean;
}

type MediaType = { schema?: { properties?: Record<string, unknown> } };

/** The body rule of an operation object of the (dereferenced) spec; undefined when it takes no body. */
export function bodyRuleOf(operation: { requestBody?: { content?: Record<string, unknown> }; 'x-max-body-bytes'?: number; 'x-body-fields'?: string; 'x-body-stream'?: boolean }): BodyRule | undefined {
  const content = operation.requestBody?.content;
  if (!content) return undefined;
  const rule: BodyRule = { types: Object.keys(content).map((t) => t.toLowerCase()), maxBytes: operation['x-max-body-bytes'] ?? MAX_BODY_BYTES };
  if (operation['x-body-stream'] === true) rule.stream = true;
  if (operation['x-body-fields'] === 'declared') {
    rule.fields = new Set(Object.values(content).flatMap((m) => Object.keys((m as MediaType).schema?.properties ?? {})));
  }
  return rule;
}

function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

/** Reads the body by `rule`, then calls `then` with it parsed (undefined when absent or not JSON); answers 413/415 itself. */
export function readBody(req: Request, res: Response, rule: BodyRule, then: (body: unknown) => void): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  // No body at all: the spec's `required` makes it a 400 that says so, whatever the type.
  if (!hasBody) return then(undefined);
  const type = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!rule.types.includes(type)) {
    req.resume();
    return sendProblem(res, 'unsupported-media-type', `Send the body as ${rule.types.join(' or ')}.`);
  }
  const tooLarge = () => sendProblem(res, 'payload-too-large', `The request body is limited to ${limitText(rule.maxBytes)}.`, { Connection: 'close' });
  if (Number(req.get('Content-Length') ?? '0') > rule.maxBytes) {
    req.resume();
    return tooLarge();
  }
  if (rule.stream) {
    // The handler reads it; the validator sees an empty list (openapi-backend checks a body against the JSON schema, a list).
    res.locals.bodyStream = limitedBody(req, rule.maxBytes);
    return then([]);
  }
  const fields = rule.fields && (type === 'application/json' ? jsonFieldReader(rule.fields) : type === 'application/x-www-form-urlencoded' ? formFieldReader(rule.fields) : undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size > rule.maxBytes) {
      done = true;
      tooLarge();
      return;
    }
    if (fields) fields.write(chunk);
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    if (fields) {
      const body = fields.end();
      if (body === undefined) res.locals.bodyNotJson = true;
      return then(body);
    }
    const bytes = Buffer.concat(chunks);
    if (type === 'application/json') {
      try {
        return then(JSON.parse(bytes.toString('utf8')));
      } catch {
        res.locals.bodyNotJson = true;
        return then(undefined);
      }
    }
    if (type === 'application/x-www-form-urlencoded') return then(formFields(bytes.toString('utf8')));
    res.locals.rawBody = bytes;
    then(bytes);
  });
  req.on('error', () => {
    done = true;
  });
}

/** The request's bytes as they arrive; more than `maxBytes` ends it with a payload-too-large problem (thrown to the reader). */
export async function* limitedBody(req: Request, maxBytes: number): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      req.resume();
      throw new HttpProblemLike('payload-too-large', `The request body is limited to ${limitText(maxBytes)}.`);
    }
    yield chunk;
  }
}

/** `a=1&b=x+y` → { a: '1', b: 'x y' }; the first of repeated names wins; `a[b]=` fields are left out. */
export function formFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name.includes('[') || name in out) continue;
    out[name] = value;
  }
  return out;
}

export interface FieldReader {
  write(chunk: Buffer): void;
  /** The fields kept (an empty array for a JSON array); undefined when the body was not well-formed JSON. */
  end(): Record<string, unknown> | unknown[] | undefined;
}

/** Deepest nesting a field-reading JSON body may have (refused as not JSON beyond). */
const MAX_DEPTH = 64;
/** Longest member name looked at; a longer one is no field of ours. */
const MAX_NAME_BYTES = 256;

/**
 * A JSON object's top-level `fields`, found as the bytes arrive. Only the
 * structure is followed (strings, nesting, the root's member names), with
 * Buffer.indexOf through strings, so a picture of megabytes in `details` is
 * skipped at memcpy speed and never held; each wanted member's value is kept and
 * parsed with JSON.parse. Other members are checked for structure (balanced
 * strings and brackets), not parsed: their values are never used. An array
 * keeps no field (the schema then says why); a bare value, unbalanced input,
 * trailing data or nesting deeper than MAX_DEPTH is not JSON.
 */
export function jsonFieldReader(fields: ReadonlySet<string>): FieldReader {
  const kept: Record<string, unknown> = {};
  let failed = false;
  let depth = 0;
  let started = false; // the root value has begun
  let object = false; // ... and it is an object
  let ended = false; // the root value is complete
  let inString = false;
  let escaped = false; // a backslash ended the previous chunk inside a string
  let expectName = false; // at depth 1, the next string is a member name
  let name: Buffer[] | undefined; // bytes of the member name being read
  let nameBytes = 0;
  let member: string | undefined; // the member whose value is being read
  let value: Buffer[] | undefined; // bytes of a wanted member's value
  const endValue = () => {
    if (value && member !== undefined) {
      try {
        kept[member] = JSON.parse(Buffer.concat(value).toString('utf8'));
      } catch {
        failed = true;
      }
    }
    value = undefined;
    member = undefined;
  };
  const write = (chunk: Buffer) => {
    let at = 0;
    let valueFrom = 0; // where the wanted value's bytes start in this chunk
    while (at < chunk.length && !failed) {
      if (inString) {
        const quote = escaped ? -1 : chunk.indexOf(0x22, at);
        // A backslash only matters before the quote: looking further would scan the chunk's rest for every string.
        const before = chunk.subarray(at, quote < 0 ? chunk.length : quote).indexOf(0x5c);
        const slash = escaped || before < 0 ? -1 : at + before;
        const inName = (to: number) => {
          if (!name) return;
          nameBytes += to - at;
          if (nameBytes <= MAX_NAME_BYTES) name.push(chunk.subarray(at, to));
        };
        if (escaped || (slash >= 0 && (quote < 0 || slash < quote))) {
          // An escape: its next byte (in the next chunk, maybe) is never the string's end.
          const to = Math.min(chunk.length, escaped ? at + 1 : slash + 2);
          escaped = !escaped && slash + 1 >= chunk.length;
          inName(to);
          at = to;
          continue;
        }
        const end = quote < 0 ? chunk.length : quote;
        inName(end);
        if (quote < 0) break;
        inString = false;
        at = quote + 1;
        if (name) {
          if (nameBytes <= MAX_NAME_BYTES) {
            try {
              const text = JSON.parse(`"${Buffer.concat(name).toString('utf8')}"`) as string;
              member = fields.has(text) ? text : undefined;
            } catch {
              failed = true;
            }
          } else member = undefined;
          name = undefined;
        }
        continue;
      }
      const c = chunk[at]!;
      if (ended) {
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) failed = true;
        at++;
        continue;
      }
      if (!started && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        started = true;
        object = c === 0x7b;
        // An array is well-formed JSON but no object (the schema says so); a bare value is refused here.
        if (!object && c !== 0x5b) failed = true;
      }
      if (c === 0x22) {
        inString = true;
        if (depth === 1 && object && expectName) {
          expectName = false;
          name = [];
          nameBytes = 0;
        }
      } else if (c === 0x7b || c === 0x5b) {
        if (++depth > MAX_DEPTH) failed = true;
        if (depth === 1) expectName = c === 0x7b;
      } else if (c === 0x7d || c === 0x5d) {
        if (depth === 1 && object) {
          if (value) value.push(chunk.subarray(valueFrom, at));
          endValue();
        }
        if (--depth < 0) failed = true;
        if (depth === 0) ended = true;
      } else if (depth === 1 && object && c === 0x2c) {
        if (value) value.push(chunk.subarray(valueFrom, at));
        endValue();
        expectName = true;
      } else if (depth === 1 && object && c === 0x3a && member !== undefined && !value) {
        value = [];
        valueFrom = at + 1;
      }
      at++;
    }
    if (value && !failed) value.push(chunk.subarray(valueFrom));
  };
  return {
    write(chunk) {
      if (!failed) write(chunk);
    },
    end() {
      if (failed || !ended || inString || depth !== 0) return undefined;
      return object ? kept : [];
    },
  };
}

/**
 * Form fields (`a=1&b=x+y`), only `fields`, parsed as the bytes arrive: a field
 * whose name is not wanted is skipped to the next `&` without being kept. The
 * first of repeated names wins, as in formFields.
 */
export function formFieldReader(fields: ReadonlySet<string>): FieldReader {
  const kept: Record<string, string> = {};
  let pending: Buffer[] = [];
  let skipping = false;
  const finish = (pair: Buffer) => {
    const [[name, value] = []] = new URLSearchParams(pair.toString('utf8'));
    if (name !== undefined && fields.has(name) && !(name in kept)) kept[name] = value!;
  };
  /** Whether the name so far (up to `=`) is one to keep; undefined while it has not ended. */
  const wanted = (head: Buffer): boolean | undefined => {
    const eq = head.indexOf(0x3d);
    if (eq < 0) return head.length > 256 ? false : undefined; // no field name is that long
    const name = new URLSearchParams(head.subarray(0, eq).toString('utf8') + '=').keys().next().value;
    return name !== undefined && fields.has(name) && !(name in kept);
  };
  return {
    write(chunk) {
      let at = 0;
      while (at < chunk.length) {
        const amp = chunk.indexOf(0x26, at);
        const piece = chunk.subarray(at, amp < 0 ? chunk.length : amp);
        if (!skipping) {
          pending.push(piece);
          if (wanted(Buffer.concat(pending)) === false) {
            pending = [];
            skipping = true;
          }
        }
        if (amp < 0) break;
        if (!skipping) finish(Buffer.concat(pending));
        pending = [];
        skipping = false;
        at = amp + 1;
      }
    },
    end() {
      if (!skipping && pending.length) finish(Buffer.concat(pending));
      return kept;
    },
  };
}
