/**
 * A real Redis for tests: `redis-server` (Debian's package; scripts/setup --test
 * installs it) on a free loopback port, nothing saved to disk.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface TestRedis {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (err) => reject(new Error(`redis-server could not run (scripts/setup --test installs it): ${err.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
  });
  child.stdout!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
