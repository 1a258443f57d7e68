/**
 * What the benchmarks that run the service as processes of its own share: a free port,
 * a process's peak RSS, and the CLI run with its wall time and peak RSS.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A TCP port on 127.0.0.1 that nothing listens on just now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls a process's peak RSS (VmHWM) until stopped; MB. */
export function peakRss(pid: number): { stop(): number } {
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (hwm) peakKb = Math.max(peakKb, Number(hwm));
    } catch {
      // exited between polls
    }
  }, 20);
  return {
    stop: () => {
      clearInterval(poll);
      return peakKb / 1024;
    },
  };
}

/** Runs the built CLI of the checkout at `root` (`node dist/main.js ...argv`); wall time, peak RSS and what it printed. */
export async function runCli(root: string, argv: string[], env: Record<string, string>): Promise<{ seconds: number; peakRssMb: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist', 'main.js'), ...argv], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const rss = peakRss(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const peakRssMb = rss.stop();
  if (code !== 0) throw new Error(`labelmaker ${argv.join(' ')} exited with ${code}:\n${stderr}`);
  return { seconds: (performance.now() - started) / 1000, peakRssMb, stdout };
}
