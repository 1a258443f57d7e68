/**
 * GET /metrics in the Prometheus text format, on its own listener (METRICS_LISTEN),
 * never on the API's port: the API's port faces clients, this one faces the
 * operators' scraper, on an address they choose (loopback, a private network).
 * Off unless configured.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from '../metrics.js';
import { listen } from './listen.js';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics collection failed\n'),
    );
  });
  server.requestTimeout = 10_000;
  await listen(server, port, host, 'METRICS_LISTEN');
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
