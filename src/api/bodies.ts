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
 *   being read, never the body.
 */
import type { Request, Response } from 'express';
import { TokenParser, Tokenizer, TokenType } from '@streamparser/json';
import { sendProblem } from './problems.js';

/** The default body limit: a template with its logo as base64. */
export const MAX_BODY_BYTES = 600 * 1024;

export interface BodyRule {
  /** Media types the operation takes, lower case, without parameters. */
  types: string[];
  /** Largest body in bytes. */
  maxBytes: number;
  /** Only these top-level fields are kept (JSON and form bodies), read as the body streams (`x-body-fields: declared`). */
  fields?: ReadonlySet<string>;
}

type MediaType = { schema?: { properties?: Record<string, unknown> } };

/** The body rule of an operation object of the (dereferenced) spec; undefined when it takes no body. */
export function bodyRuleOf(operation: { requestBody?: { content?: Record<string, unknown> }; 'x-max-body-bytes'?: number; 'x-body-fields'?: string }): BodyRule | undefined {
  const content = operation.requestBody?.content;
  if (!content) return undefined;
  const rule: BodyRule = { types: Object.keys(content).map((t) => t.toLowerCase()), maxBytes: operation['x-max-body-bytes'] ?? MAX_BODY_BYTES };
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

/** `a=1&b=x+y` → { a: '1', b: 'x y' }; the first of repeated names wins; `a[b]=` fields are left out. */
export function formFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name.includes('[') || name in out) continue;
    out[name] = value;
  }
  return out;
}

interface FieldReader {
  write(chunk: Buffer): void;
  /** The fields kept; undefined when the body was not well-formed JSON. */
  end(): Record<string, unknown> | undefined;
}

/**
 * A JSON object's top-level `fields`, parsed as the bytes arrive: every other
 * member's value is dropped as soon as it is complete (TokenParser without
 * keepStack deletes what no selected path needs), so memory holds one value at
 * a time. Anything but an object keeps no field (the schema then says why);
 * nesting deeper than MAX_DEPTH is refused as not JSON.
 */
/** Deepest nesting a field-reading JSON body may have (it is refused as not JSON beyond). */
const MAX_DEPTH = 64;

function jsonFieldReader(fields: ReadonlySet<string>): FieldReader {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: [...fields].map((f) => `$.${f}`), keepStack: false });
  const kept: Record<string, unknown> = {};
  let failed = false;
  let first = true;
  let object = false;
  let depth = 0;
  tokenizer.onToken = (t) => {
    if (first) object = t.token === TokenType.LEFT_BRACE;
    first = false;
    // The parser keeps a frame per open level: 4 MiB of `[` would be millions. Grocy nests a few levels.
    if (t.token === TokenType.LEFT_BRACE || t.token === TokenType.LEFT_BRACKET) depth++;
    else if (t.token === TokenType.RIGHT_BRACE || t.token === TokenType.RIGHT_BRACKET) depth--;
    if (depth > MAX_DEPTH) {
      failed = true;
      throw new Error('nested too deeply');
    }
    parser.write(t);
  };
  tokenizer.onError = parser.onError = () => {
    failed = true;
  };
  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 1 && typeof key === 'string' && fields.has(key)) kept[key] = value;
  };
  return {
    write(chunk) {
      if (!failed) tokenizer.write(chunk);
    },
    end() {
      if (!failed) tokenizer.end();
      if (failed || !parser.isEnded) return undefined;
      return object ? kept : {};
    },
  };
}

/**
 * Form fields (`a=1&b=x+y`), only `fields`, parsed as the bytes arrive: a field
 * whose name is not wanted is skipped to the next `&` without being kept. The
 * first of repeated names wins, as in formFields.
 */
function formFieldReader(fields: ReadonlySet<string>): FieldReader {
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
