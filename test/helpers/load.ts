/**
 * A steady mixed load against a running service, recording every answer with its
 * start and end times, so a test can line answers up with the moments it injected
 * faults: label reads, label prints (each with its own Idempotency-Key) and /healthz.
 */
import { randomUUID } from 'node:crypto';

export type Kind = 'read' | 'print' | 'health';

export interface Sample {
  kind: Kind;
  path: string;
  start: number;
  end: number;
  /** HTTP status, or 0 when the request itself failed (connection refused, timed out). */
  status: number;
  /** Health: store.state; print: the Print-Job path when accepted; else the problem detail. */
  info?: string;
  error?: string;
  /** The service's X-Request-Id, which finds the request's lines in its log. */
  requestId?: string;
}

export interface LoadOptions {
  url: string;
  token: string;
  readers?: number;
  printers?: number;
  /** Pause between one health check's answer and the next check. */
  healthEveryMs?: number;
  /** Pause after each print (every accepted job must be printed before the test ends). */
  printPauseMs?: number;
  readPaths?: string[];
  printPaths?: string[];
  timeoutMs?: number;
}

export interface Load {
  samples: Sample[];
  /** Stops issuing requests and waits for those in flight. */
  stop(): Promise<Sample[]>;
}

const DEFAULT_READS = ['/v1/labelmaker/location/bin-12', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage'];

export function startLoad(opts: LoadOptions): Load {
  const { url, token, readers = 3, printers = 2, healthEveryMs = 40, printPauseMs = 0, timeoutMs = 15_000 } = opts;
  const readPaths = opts.readPaths ?? DEFAULT_READS;
  const printPaths = opts.printPaths ?? readPaths.map((p) => `${p}?print=true`);
  const samples: Sample[] = [];
  let running = true;

  const request = async (kind: Kind, path: string, headers: Record<string, string>): Promise<void> => {
    const start = performance.now();
    try {
      const res = await fetch(url + path, { headers: { Accept: 'image/png, application/json, application/problem+json', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
      const body = Buffer.from(await res.arrayBuffer());
      let info: string | undefined;
      if (kind === 'health') info = safeJson(body)?.store?.state;
      else if (res.status === 200) info = res.headers.get('print-job') ?? undefined;
      else info = safeJson(body)?.detail;
      samples.push({ kind, path, start, end: performance.now(), status: res.status, info, requestId: res.headers.get('x-request-id') ?? undefined });
    } catch (err) {
      samples.push({ kind, path, start, end: performance.now(), status: 0, error: (err as Error).message });
    }
  };

  const loop = async (kind: Kind, i: number) => {
    for (let n = i; running; n++) {
      if (kind === 'health') {
        await request('health', '/healthz', {});
        await new Promise((resolve) => setTimeout(resolve, healthEveryMs));
      } else if (kind === 'read') {
        await request('read', readPaths[n % readPaths.length]!, { Authorization: `Bearer ${token}` });
      } else {
        await request('print', printPaths[n % printPaths.length]!, { Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID() });
        if (printPauseMs > 0) await new Promise((resolve) => setTimeout(resolve, printPauseMs));
      }
    }
  };

  const loops = [
    ...Array.from({ length: readers }, (_, i) => loop('read', i)),
    ...Array.from({ length: printers }, (_, i) => loop('print', i)),
    loop('health', 0),
  ];
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safeJson(body: Buffer): any {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Polls each accepted job until it is printed; returns the ids that never got there. */
export async function waitPrinted(url: string, token: string, jobPaths: string[], timeoutMs = 60_000): Promise<string[]> {
  const left = new Set(jobPaths);
  const until = Date.now() + timeoutMs;
  while (left.size > 0 && Date.now() < until) {
    for (const path of [...left]) {
      try {
        const res = await fetch(url + path, { headers: { Authorization: `Bearer ${token}` } });
        if (res.status === 200 && ((await res.json()) as { state: string }).state === 'printed') left.delete(path);
      } catch {
        // the service may be busy; ask again
      }
    }
    if (left.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [...left];
}
