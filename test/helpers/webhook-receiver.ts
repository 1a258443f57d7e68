/**
 * A webhook receiver in its own process (node --import tsx test/helpers/webhook-receiver.ts),
 * as a user runs one: it verifies each delivery's signature the way docs/webhooks.md shows,
 * and answers as its mode says: `ok` (204), `fail` (500) or `hang` (reads the request, never
 * answers). Controlled over its own loopback port: POST /_control {mode?, secret?}; GET
 * /_received lists every request it read (event id, type, signature valid, mode it met, subject, data,
 * and the raw body with its Labelmaker-* headers, for a test to check the signature itself).
 * Prints `listening <port>` when ready.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** docs/webhooks.md's verification: the timestamp within 5 minutes, the HMAC compared in constant time. */
function verify(secret: string, headers: IncomingHttpHeaders, rawBody: string, toleranceSeconds = 300): boolean {
  const timestamp = Number(headers['labelmaker-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
  const got = String(headers['labelmaker-signature'] ?? '');
  return got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
}

let mode: 'ok' | 'fail' | 'hang' = 'ok';
let secret = '';
const received: {
  eventId: string; bodyId: number; type: string; valid: boolean; mode: string; deliveryId: string; subject: unknown; data: unknown;
  eventType: string; timestamp: string; signature: string; raw: string;
}[] = [];

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/_control') {
      const body = JSON.parse(raw) as { mode?: typeof mode; secret?: string };
      if (body.mode) mode = body.mode;
      if (body.secret) secret = body.secret;
      res.writeHead(204).end();
      return;
    }
    if (req.url === '/_received') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(received));
      return;
    }
    const body = JSON.parse(raw) as { id: number; type: string; subject: unknown; data: unknown };
    received.push({
      eventId: String(req.headers['labelmaker-event-id']), bodyId: body.id, type: body.type, valid: verify(secret, req.headers, raw), mode, deliveryId: String(req.headers['labelmaker-delivery-id']), subject: body.subject, data: body.data,
      eventType: String(req.headers['labelmaker-event-type']), timestamp: String(req.headers['labelmaker-timestamp']), signature: String(req.headers['labelmaker-signature']), raw,
    });
    if (mode === 'hang') return; // never answers: the sender's time-out
    res.writeHead(mode === 'ok' ? 204 : 500).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
