/**
 * Connections a client never closes, against the service in its own process: idle
 * sockets and a header-trickling client get their 408 at REQUEST_TIMEOUT_MS and are
 * then closed by the server (file descriptors counted in /proc/<pid>/fd), and
 * connections past MAX_CONNECTIONS are closed as they arrive.
 */
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllServices, startService, type Service } from '../helpers/service.js';

const TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 400;
let dir: string;
let svc: Service;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-connections-'));
  svc = await startService({
    DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
    REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    RENDER_THREADS: '0',
  });
}, 60_000);
afterAll(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

const openFds = () => readdirSync(`/proc/${svc.child.pid}/fd`).length;

/** A client that never closes its side: it keeps the socket after the server's FIN (allowHalfOpen), as a hostile one would. */
interface Stubborn {
  socket: Socket;
  received(): string;
  /** Resolves when the socket is closed (here by the server: the client never closes it). */
  gone: Promise<void>;
  /** Resolves when the server ended the connection (FIN or reset). */
  cut: Promise<void>;
}

function stubbornSocket(): Promise<Stubborn> {
  const { port } = new URL(svc.url);
  const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
  socket.on('error', () => undefined);
  const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const cut = new Promise<void>((resolve) => {
    socket.once('end', () => resolve());
    socket.once('close', () => resolve());
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received: () => received, gone, cut }));
    socket.once('error', reject);
  });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('connections the client never closes', () => {
  it('300 idle connections are closed by the server after their 408, not kept half-open', async () => {
    const before = openFds();
    const sockets = await Promise.all(Array.from({ length: 300 }, () => stubbornSocket()));
    expect(await until(() => openFds() >= before + 300, 3000)).toBe(true);
    // Each gets its 408 at the time-out (Node checks once a second) ...
    expect(await until(() => sockets.every((s) => s.received().startsWith('HTTP/1.1 408 ')), TIMEOUT_MS + 3000)).toBe(true);
    // ... and the server lets go of it: its descriptors are back to where they were.
    expect(await until(() => openFds() <= before + 5, 3000)).toBe(true);
    for (const s of sockets) s.socket.destroy();
  });

  it('a client trickling its headers is disconnected after its 408', async () => {
    const s = await stubbornSocket();
    s.socket.write('GET /v1/labelmaker/records HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => s.socket.writable && s.socket.write('X-Slow: a\r\n'), 100);
    const started = Date.now();
    await Promise.race([s.gone, new Promise((r) => setTimeout(r, TIMEOUT_MS + 5000))]);
    clearInterval(drip);
    expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(s.socket.destroyed).toBe(true);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 4000);
    s.socket.destroy();
  });

  it(`connections past MAX_CONNECTIONS (${MAX_CONNECTIONS}) are closed at once; requests work again when they go`, async () => {
    const before = openFds();
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => stubbornSocket()));
    expect(await until(() => openFds() >= before + MAX_CONNECTIONS, 3000)).toBe(true);
    const extra = await Promise.all(Array.from({ length: 20 }, () => stubbornSocket()));
    // The extra ones are closed without an answer, long before any time-out.
    const closedAtOnce = await Promise.race([Promise.all(extra.map((s) => s.cut)).then(() => true), new Promise((r) => setTimeout(() => r(false), TIMEOUT_MS / 2))]);
    expect(closedAtOnce).toBe(true);
    expect(openFds()).toBeLessThanOrEqual(before + MAX_CONNECTIONS);
    expect(extra.every((s) => s.received() === '')).toBe(true);
    for (const s of held) s.socket.destroy();
    await until(() => openFds() < 100, 3000);
    const res = await fetch(`${svc.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
