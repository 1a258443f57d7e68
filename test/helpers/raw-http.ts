/**
 * HTTP/1.1 over a plain socket, for requests fetch() refuses to send (malformed
 * request lines, bad percent-escapes, raw bytes in headers) and for clients that
 * stall. Reads the whole response until the server closes or Content-Length is met.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Milliseconds from connect to the end of the response. */
  ms: number;
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the final blank
 * line unless `complete`) and returns the response. With `complete: false` the
 * request never ends: a slow client.
 */
export function rawRequest(baseUrl: string, head: string | Buffer, { complete = true, timeoutMs = 15_000 } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const parsed = parse(Buffer.concat(chunks));
      if (!parsed) return reject(new Error(`no HTTP response: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`));
      resolve({ ...parsed, ms: Date.now() - started });
      socket.destroy();
    };
    socket.on('connect', () => {
      const text = Buffer.isBuffer(head) ? head : Buffer.from(head, 'latin1');
      socket.write(complete ? Buffer.concat([text, Buffer.from('\r\n\r\n')]) : text);
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const parsed = parse(Buffer.concat(chunks));
      const length = parsed && Number(parsed.headers['content-length']);
      if (parsed && Number.isInteger(length) && parsed.body.length >= length!) finish();
    });
    socket.on('end', finish);
    socket.on('error', (err) => {
      clearTimeout(timer);
      if (chunks.length > 0) finish();
      else reject(err);
    });
  });
}

function parse(raw: Buffer): Omit<RawResponse, 'ms'> | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!status) return undefined;
  if (status < 200) return parse(raw.subarray(end + 4)); // 100 Continue: the real response follows
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status, headers, body: raw.subarray(end + 4) };
}
