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
 * - images stay bytes.
 */
import type { Request, Response } from 'express';
import { sendProblem } from './problems.js';

/** The default body limit: a template with its logo as base64. */
export const MAX_BODY_BYTES = 600 * 1024;

export interface BodyRule {
  /** Media types the operation takes, lower case, without parameters. */
  types: string[];
  /** Largest body in bytes. */
  maxBytes: number;
}

/** The body rule of an operation object of the spec; undefined when it takes no body. */
export function bodyRuleOf(operation: { requestBody?: { content?: Record<string, unknown> }; 'x-max-body-bytes'?: number }): BodyRule | undefined {
  const content = operation.requestBody?.content;
  if (!content) return undefined;
  return { types: Object.keys(content).map((t) => t.toLowerCase()), maxBytes: operation['x-max-body-bytes'] ?? MAX_BODY_BYTES };
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
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (done) return;
    done = true;
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
