/**
 * Prints by running a configured program (e.g. ["lp", "-d", "Brother", "{file}"]).
 * The argument vector is split once, at configuration time, and each argument
 * is then rendered on its own and passed to spawn() without a shell: a label
 * name like `Drill; rm -rf /` stays one literal argument (Homebox split the
 * rendered string on spaces, which let item names inject arguments).
 *
 * `{jobId}` is the print job's id, the same for every attempt: a program that
 * remembers the ids it printed can skip a redelivery. We cannot ask the program
 * what it did, so a program stopped mid-run (time-out, shutdown, a signal) is an uncertain
 * delivery and its retry is flagged as a possible duplicate; a non-zero exit is
 * the program saying it did not print.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abortError, UncertainDeliveryError, type PrintDocument, type PrinterDriver } from './types.js';

const PLACEHOLDER = /\{(file|jobId|title|template|kind|id|name|assetId|url)\}/g;
const FIELD_KEYS = ['kind', 'id', 'name', 'assetId', 'url'] as const;
const STDERR_TAIL = 500;

export interface CommandOptions {
  /** Time between SIGTERM and SIGKILL once the job is aborted (default 2000 ms). */
  killGraceMs?: number;
}

/** Substitutes placeholders in each argument separately; unknown {words} stay as written. */
export function renderArgv(argv: readonly string[], values: Record<string, string>): string[] {
  return argv.map((arg) => arg.replace(PLACEHOLDER, (whole, key: string) => values[key] ?? ''));
}

export class CommandDriver implements PrinterDriver {
  readonly kind = 'command' as const;
  readonly target: string;

  constructor(
    private readonly argv: readonly string[],
    private readonly opts: CommandOptions = {},
  ) {
    if (argv.length === 0 || !argv[0]) throw new Error('printer command: the argument vector is empty');
    if (argv.some((a) => typeof a !== 'string')) throw new Error('printer command: every argument must be a string');
    // Only the program name: arguments may embed secrets (e.g. -U user -h host).
    this.target = `command ${argv[0]}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw abortError(signal, `running ${this.argv[0]}`);
    const dir = await mkdtemp(join(tmpdir(), 'labelmaker-print-'));
    try {
      const file = join(dir, 'label.png');
      await writeFile(file, doc.png, { mode: 0o600 });
      // `{template}` (the configuration's placeholder, as the job's `template` field) is the stock name.
      const values: Record<string, string> = { file, jobId: doc.jobId, title: doc.title, template: doc.stockName };
      for (const k of FIELD_KEYS) values[k] = doc.fields[k] ?? '';
      await this.run(renderArgv(this.argv, values), signal);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private run(args: string[], signal: AbortSignal): Promise<void> {
    const [program, ...rest] = args as [string, ...string[]];
    return new Promise<void>((resolve, reject) => {
      // detached: own process group, so a time-out also stops the program's children.
      const child = spawn(program, rest, { shell: false, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = Buffer.alloc(0);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = Buffer.concat([stderr, chunk]);
        if (stderr.length > STDERR_TAIL * 4) stderr = stderr.subarray(stderr.length - STDERR_TAIL);
      });
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      const kill = (sig: NodeJS.Signals): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, sig);
        } catch {
          child.kill(sig); // group already gone or not a leader: signal the child itself
        }
      };
      const onAbort = (): void => {
        aborted = true;
        kill('SIGTERM');
        killTimer = setTimeout(() => kill('SIGKILL'), this.opts.killGraceMs ?? 2000);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const tail = (): string => {
        const text = stderr.subarray(Math.max(0, stderr.length - STDERR_TAIL)).toString('utf8').trim();
        return text ? `: ${text}` : '';
      };
      child.once('error', (e: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(killTimer);
        reject(new Error(`printer command ${program} could not start: ${e.code ?? e.message}`, { cause: e }));
      });
      child.once('close', (code, sig) => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(killTimer);
        if (aborted) reject(new UncertainDeliveryError(abortError(signal, `printer command ${program} was stopped (${sig ?? `exit ${code}`})`).message, { cause: signal.reason }));
        else if (sig) reject(new UncertainDeliveryError(`printer command ${program} was killed by ${sig}${tail()}`));
        else if (code !== 0) reject(new Error(`printer command ${program} exited with code ${code}${tail()}`));
        else resolve();
      });
    });
  }
}
