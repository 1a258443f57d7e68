/**
 * A real IPP Everywhere printer on loopback: CUPS's ippeveprinter (Debian
 * cups-ipp-utils), with its own private D-Bus daemon (it refuses to start
 * without a bus even with -r off), a free port, `-c /bin/true` so jobs
 * complete at once, and a temp spool folder where every received document is
 * kept byte-identical as <job-id>-<job-name>.<ext>.
 *
 * For printer status (issue 31) it can start from an attribute file (`-a`, ipptoolfile(5)
 * syntax) with real media (media-ready, media-col-ready, media-col-database,
 * media-source-supported, printer-input-tray: test/fixtures/ippeve/), and change state
 * while it runs the two ways ippeveprinter offers (CUPS tools/ippeveprinter.c):
 *   setMedia()  its /media web form: sizeN/typeN/levelN per media-source-supported index;
 *               a level of 0 sets media-empty, 1-24 media-low (`show_media`);
 *   control()   a "control job" whose text the -c command copies to stderr, where
 *               "STATE: +media-jam,cover-open" / "STATE: -…" add and remove
 *               printer-state-reasons (ippeveprinter(1), "COMMAND OUTPUT").
 * ippeveprinter cannot take door-open (it knows 16 reasons, `ippeve_preason_strings`) and
 * stays idle, giving its reasons the -report suffix, whatever they are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, mkdir, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeResponse, encodeRequest, JOB_STATE, TAG } from '../../src/printing/drivers/ipp-codec.js';

export interface IppEvePrinter {
  /** ipp://localhost:PORT/ipp/print */
  uri: string;
  port: number;
  spoolDir: string;
  /** Received documents (not the .prn outputs of the -c command), sorted by name. */
  documents(): Promise<{ name: string; data: Buffer }[]>;
  /** Loads media through the /media web form, e.g. { size0: 'roll_…', type0: 'continuous', level0: '100' }. */
  setMedia(form: Record<string, string>): Promise<void>;
  /** Sends a control job ("STATE: +media-jam") and waits until the printer has processed it (needs controlJobs). */
  control(text: string): Promise<void>;
  stop(): Promise<void>;
}

export interface IppEveOptions {
  /** Document formats for -f (default image/png, image/pwg-raster, image/jpeg). */
  formats?: string[];
  name?: string;
  /** An ippserver attribute file for -a (then -f is not allowed: formats are image/pwg-raster, image/urf). */
  attributesFile?: string;
  /** Run jobs through a command that passes their STATE:/ATTR: lines to ippeveprinter (for control()). */
  controlJobs?: boolean;
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

/** One IPP operation against ippeveprinter (Print-Job 0x0002, Get-Job-Attributes 0x0009); its job group's attributes. */
async function ippCall(port: number, op: number, attrs: { tag: number; name: string; values: (string | number)[] }[], data?: Buffer) {
  const uri = `ipp://localhost:${port}/ipp/print`;
  const body = encodeRequest(
    op,
    1,
    [
      { tag: TAG.charset, name: 'attributes-charset', values: ['utf-8'] },
      { tag: TAG.naturalLanguage, name: 'attributes-natural-language', values: ['en'] },
      { tag: TAG.uri, name: 'printer-uri', values: [uri] },
      { tag: TAG.name, name: 'requesting-user-name', values: ['test'] },
      ...attrs,
    ],
    data,
  );
  const res = await fetch(`http://localhost:${port}/ipp/print`, { method: 'POST', headers: { 'Content-Type': 'application/ipp' }, body: new Uint8Array(body) });
  const decoded = decodeResponse(Buffer.from(await res.arrayBuffer()));
  if (decoded.statusCode > 0xff) throw new Error(`ippeveprinter: IPP status 0x${decoded.statusCode.toString(16)}`);
  return { job: decoded.groups.find((g) => g.tag === TAG.job)?.attributes ?? new Map() };
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
    let command = '/bin/true';
    if (opts.controlJobs) {
      // The job's file is argv[1]; ippeveprinter reads STATE: and ATTR: lines from the command's stderr.
      command = join(dir, 'state-cmd.sh');
      await writeFile(command, `#!/bin/sh\ngrep -aE '^(STATE|ATTR):' "$1" >&2\nexit 0\n`);
      await chmod(command, 0o755);
    }
    const source = opts.attributesFile ? ['-a', opts.attributesFile] : ['-f', formats.join(',')];
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
        ['-r', 'off', '-n', 'localhost', '-p', String(port), '-d', spoolDir, '-k', '-c', command, ...source, opts.name ?? 'TestLabel'],
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
      async setMedia(form) {
        const res = await fetch(`http://localhost:${port}/media?${new URLSearchParams(form).toString()}`);
        const page = await res.text();
        if (!res.ok || page.includes('Error:')) throw new Error(`ippeveprinter /media: HTTP ${res.status} ${page.match(/Error:[^<]*/)?.[0] ?? ''}`);
      },
      async control(text) {
        if (!opts.controlJobs) throw new Error('start the printer with controlJobs: true');
        const jobId = await ippCall(port, 0x0002, [
          { tag: TAG.name, name: 'job-name', values: ['control'] },
          { tag: TAG.mimeMediaType, name: 'document-format', values: ['image/pwg-raster'] }, // -a leaves pwg-raster and urf; the content is not checked
        ], Buffer.from(`${text}\n`)).then((r) => r.job.get('job-id')?.[0]);
        if (typeof jobId !== 'number') throw new Error('ippeveprinter did not accept the control job');
        await waitFor('control job', 10_000, async () => {
          const r = await ippCall(port, 0x0009, [
            { tag: TAG.integer, name: 'job-id', values: [jobId] },
            { tag: TAG.keyword, name: 'requested-attributes', values: ['job-state'] },
          ]);
          const state = r.job.get('job-state')?.[0];
          return typeof state === 'number' && state >= JOB_STATE.canceled;
        });
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${stderr.join('').slice(-2000)}`);
  }
}
