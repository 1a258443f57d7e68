/**
 * Headers collected during a request and written with the status line in one
 * `writeHead(status, headers)`. Node's `setHeader` checks each name and value, lowercases
 * the name into a map of its own and, when the answer is written, walks that map again;
 * `writeHead` with a plain object and no header set before writes the object straight
 * into the head. The stages every request passes (exchange.ts: request id, security
 * headers, CORS; rate-limit.ts; a label's validators) add theirs here, so a cached label
 * or a 304 sets no header one by one (about 6 µs and 3 KB a request less).
 *
 * Whoever writes the answer, however (res.end, res.send, a static file, the cors
 * middleware's preflight), Node writes the head through `res.writeHead`: the app's
 * `writeHead` (installed on `app.response`, Express's documented way to extend its
 * responses) adds the collected headers there. A header set with `setHeader` (before or
 * after) wins over a collected one of the same name, as a later `setHeader` would have.
 * Collected names are written as spelled: spell each the same way everywhere (as the
 * constants here and in cors.ts do).
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Express } from 'express';

const COLLECTED = Symbol('headers to write with the status line');

type Collecting = ServerResponse & { [COLLECTED]?: { [name: string]: string | number } };

/** Adds `name: value` to the headers written with the answer's status line. */
export function addHeader(res: ServerResponse, name: string, value: string | number): void {
  const r = res as Collecting;
  (r[COLLECTED] ??= {})[name] = value;
}

/** Installs the writeHead that adds the collected headers on the app's responses (once per app). */
export function writeCollectedHeaders(app: Express): void {
  const response = app.response as unknown as ServerResponse;
  const inherited = response.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  // Node's signatures: (status), (status, headers), (status, reason, headers); headers an object or an array.
  function writeHeadWithCollected(this: Collecting, ...args: [number, unknown?, unknown?]): ServerResponse {
    const collected = this[COLLECTED];
    if (collected === undefined) return inherited.apply(this, args);
    const [status, reason, headers] = args;
    this[COLLECTED] = undefined;
    let given = headers;
    let message = reason;
    if (typeof reason !== 'string') {
      given = reason;
      message = undefined;
    }
    if (Array.isArray(given)) {
      // Rare (nothing here passes an array): set the collected ones first, the array's are added after.
      for (const name in collected) if (!this.hasHeader(name)) this.setHeader(name, collected[name]!);
    } else {
      // Headers set one by one win, as a later setHeader did (hasHeader is one property check when none were).
      const merged: OutgoingHttpHeaders = {};
      for (const name in collected) if (!this.hasHeader(name)) merged[name] = collected[name];
      given = given ? Object.assign(merged, given) : merged;
    }
    return message === undefined ? inherited.call(this, status, given) : inherited.call(this, status, message, given);
  }
  response.writeHead = writeHeadWithCollected as ServerResponse['writeHead'];
}
