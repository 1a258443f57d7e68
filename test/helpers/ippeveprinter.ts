/**
 * A real IPP Everywhere printer on loopback: CUPS's ippeveprinter (Debian
 * cups-ipp-utils), with its own private D-Bus daemon (it refuses to start
 * without a bus even with -r off), a free port, `-c /bin/true` so jobs
 * complete at once, and a temp spool folder where every received document is
 * kept byte-identical as <job-id>-<job-name>.<ext>.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, mkdir } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IppEvePrinter {
  /** ipp://localhost:PORT/ipp/print */
  uri: string;
  port: number;
  spoolDir: string;
  /** Received documents (not the .prn outputs of the -c command), sorted by name. */
  documents(): Promise<{ name: string; data: Buffer }[]>;
  stop(): Promise<void>;
}

export interface IppEveOptions {
  /** Document formats for -f (default image/png, image/pwg-raster, image/jpeg). */
  formats?: string[];
  name?: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

async function waitFor(what: string, ms: number, check: () => Promise<boolean> | boolean, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what}: process exited with code ${child.exitCode}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not ready after ${ms} ms`);
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: 'localhost', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startIppEvePrinter(opts: IppEveOptions = {}): Promise<IppEvePrinter> {
  const dir = await mkdtemp(join(tmpdir(), 'ippeve-'));
  const spoolDir = join(dir, 'spool');
  await mkdir(spoolDir);
  const busSock = join(dir, 'bus.sock');
  const stderr: string[] = [];
  const dbus = spawn('dbus-daemon', ['--session', `--address=unix:path=${busSock}`, '--nofork', '--nopidfile'], { stdio: ['ignore', 'ignore', 'pipe'] });
  dbus.stderr?.on('data', (c: Buffer) => stderr.push(c.toString()));
  let printer: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (printer) await stopProcess(printer);
    await stopProcess(dbus);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('dbus-daemon', 5000, () => existsSync(busSock), dbus);
    const formats = opts.formats ?? ['image/png', 'image/pwg-raster', 'image/jpeg'];
    // A free port is free only until another process takes it: two printers started at
    // once (test files run in parallel) can be handed the same one. The one that loses
    // exits at once, but the winner answers on the port meanwhile, so the loser's test
    // would talk to another test's printer (with its jobs). Check ours is still running
    // once the port answers, and start again on another port if it is not.
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const child = spawn(
        'ippeveprinter',
        ['-r', 'off', '-n', 'localhost', '-p', String(port), '-d', spoolDir, '-k', '-c', '/bin/true', '-f', formats.join(','), opts.name ?? 'TestLabel'],
        { env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${busSock}` }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      printer = child;
      child.stdout?.on('data', (c: Buffer) => stderr.push(c.toString()));
      child.stderr?.on('data', (c: Buffer) => stderr.push(c.toString()));
      const ready = await waitFor('ippeveprinter', 10_000, () => answers(port), child).then(
        () => new Promise((r) => setTimeout(r, 300)).then(() => child.exitCode === null && child.signalCode === null),
        (err: unknown) => {
          if (attempt >= 5) throw err;
          return false;
        },
      );
      if (ready) break;
      if (attempt >= 5) throw new Error('ippeveprinter: lost its port to another process five times');
      await stopProcess(child);
    }
    return {
      uri: `ipp://localhost:${port}/ipp/print`,
      port,
      spoolDir,
      async documents() {
        const names = (await readdir(spoolDir)).filter((n) => !n.endsWith('.prn')).sort();
        return Promise.all(names.map(async (name) => ({ name, data: await readFile(join(spoolDir, name)) })));
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${stderr.join('').slice(-2000)}`);
  }
}
