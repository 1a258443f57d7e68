/**
 * Requests Node's HTTP parser rejects before Express sees them (headers over the
 * limit, a malformed request line or header, a client too slow to send its
 * request) still get a problem body, as every other error does. Shared by the
 * server and the mock.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPES, problem, type ProblemSlug } from './problems.js';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id.js';

/** Request headers larger than this get a 431 problem (the spec's limit). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How long an error answer may take to reach a client before its socket is destroyed anyway. */
const CLOSE_GRACE_MS = 5_000;

export function answerClientErrors(server: Server, timeoutMs: number): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing to answer on a connection that is gone or already carries a response.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const [slug, detail] = classify(err, timeoutMs);
    // The request could not be read, so neither could its X-Request-Id: this answer gets a fresh one.
    const requestId = requestIdFrom(undefined);
    const body = Buffer.from(JSON.stringify({ ...problem(slug, detail), requestId }));
    const { status, title } = PROBLEM_TYPES[slug];
    // Node's HTTP server allows half-open sockets: end() alone sends FIN and then keeps the
    // socket (and its file descriptor) until the client closes its side, which an idle or
    // hostile client never does. Once the answer is flushed, the socket is closed for good.
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${body.length}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body.toString()}`,
      () => socket.destroy(),
    );
    // A client that reads nothing can keep even this small answer from flushing: a bound.
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  });
}

function classify(err: NodeJS.ErrnoException, timeoutMs: number): [ProblemSlug, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return ['headers-too-large', 'Request headers are limited to 16 KiB.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request-timeout', `The request was not received within ${Math.round(timeoutMs / 1000)} seconds.`];
    default:
      return ['invalid-request', 'The request is not valid HTTP/1.1 (its request line or a header is malformed).'];
  }
}
