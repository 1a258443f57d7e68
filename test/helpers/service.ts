/**
 * The service as users run it: `src/main.ts` in its own process, configured by
 * environment variables.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = ['--import', 'tsx', 'src/main.ts'];
/** The installed command (bin/labelmaker: the pinned Node on the compiled dist/main.js). */
export const BIN = `${ROOT}bin/labelmaker`;

export interface Service {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** What it printed on stdout only (the structured log stream). */
  stdout(): string;
  /** What it printed on stderr only (the terminal: the demo banner). */
  stderr(): string;
}

const running: ChildProcess[] = [];

/**
 * Starts the service and resolves once it logs that it listens, within `startMs` (more for
 * several at once on a busy machine). `hostsFile`: the process
 * sees that file as its /etc/hosts (its own mount namespace, `unshare -m`; needs root), so
 * a printer's host name resolves as at one site and not another (printer-reach.test.ts).
 */
export function startService(env: Record<string, string>, opts: { hostsFile?: string; startMs?: number; bin?: string[]; cwd?: string } = {}): Promise<Service> {
  const { startMs = 30_000 } = opts;
  const [command, args] = opts.hostsFile
    ? ['unshare', ['-m', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"', opts.hostsFile, process.execPath, ...ENTRY]]
    : opts.bin
      ? [BIN, opts.bin]
      : [process.execPath, ENTRY];
  const child = spawn(command, args, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in ${startMs} ms:\n${out}`)), startMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      stdout += chunk.toString();
      const m = /"url":"(http:\/\/[^"]+)".*labelmaker listening/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out, stdout: () => stdout, stderr: () => stderr });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      stderr += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
}

/** Runs a store command (`labelmaker tokens list`, ...) to completion. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...ENTRY, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export async function killHard(child: ChildProcess): Promise<void> {
  const done = exited(child);
  child.kill('SIGKILL');
  await done;
}

/** For afterEach: no service outlives its test. */
export function killAllServices(): void {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
