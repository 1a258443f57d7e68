/**
 * A small round-robin reverse proxy on loopback, standing in for the load balancer
 * in front of several instances (scale-out test, bench:scale). Each request goes to
 * the next backend in turn, with the client's address in X-Forwarded-For (so the
 * instances, with TRUST_PROXY=loopback, see the real client). node:http only.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  url: string;
  /** Requests sent to each backend so far, in the order given. */
  counts: number[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export async function startRoundRobin(backends: string[]): Promise<RoundRobin> {
  const targets = backends.map((b) => new URL(b));
  const counts = backends.map(() => 0);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const i = next;
    next = (next + 1) % targets.length;
    counts[i]!++;
    const target = targets[i]!;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const forwarded = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = `${forwarded ? `${String(forwarded)}, ` : ''}${req.socket.remoteAddress ?? ''}`;
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (up) => {
      const out = Object.fromEntries(Object.entries(up.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      res.writeHead(up.statusCode ?? 502, out);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('bad gateway\n');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
