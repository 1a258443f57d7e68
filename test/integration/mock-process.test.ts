/**
 * `npm run mock` as a frontend developer runs it: it starts, serves, and when
 * stopped (Ctrl-C, or SIGTERM from a supervisor) leaves no process behind; a port
 * in use is one line naming MOCK_PORT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null && c.pid) process.kill(-c.pid, 'SIGKILL');
});

/** Every process below `pid`, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat); // a zombie has exited
  } catch {
    return false;
  }
};

function startMockProcess(env: Record<string, string>): { child: ChildProcess; output: () => string; url: Promise<string> } {
  // detached: its own process group, as a terminal gives it; Ctrl-C goes to the whole group.
  const child = spawn('npm', ['run', 'mock'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mock exited with ${code}:\n${out}`)));
  });
  return { child, output: () => out, url };
}

describe('npm run mock', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGKILL'] as const)('stops on %s with no process left behind', { timeout: 60_000 }, async (signal) => {
    const mock = startMockProcess({ MOCK_PORT: '0' });
    const url = await mock.url;
    const res = await fetch(`${url}/v1/labelmaker/records`, { headers: { Authorization: 'Bearer x' } });
    expect(res.status).toBe(200);
    const tree = [mock.child.pid!, ...descendants(mock.child.pid!)];
    expect(tree.length).toBeGreaterThan(1);
    const exited = new Promise((r) => mock.child.once('exit', r));
    // Ctrl-C reaches the whole foreground group; a supervisor's SIGTERM, or a SIGKILL, reaches npm only.
    if (signal === 'SIGINT') process.kill(-mock.child.pid!, 'SIGINT');
    else mock.child.kill(signal);
    await exited;
    await new Promise((r) => setTimeout(r, 3000));
    expect(tree.filter(alive)).toEqual([]);
  });

  it('a port in use is one line naming MOCK_PORT', { timeout: 60_000 }, async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const mock = startMockProcess({ MOCK_PORT: String(port) });
      await mock.url.catch(() => undefined);
      expect(mock.output()).toContain(`labelmaker mock: port ${port} on 127.0.0.1 is already in use: set MOCK_PORT to another port (or 0 for any free port)`);
      expect(mock.output()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      blocker.close();
    }
  });
});
