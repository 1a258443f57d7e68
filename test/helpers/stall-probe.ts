/**
 * What a request costs everyone else: while it runs, a second client asks the
 * service's /healthz back to back and the service's resident memory is read from
 * /proc. Used by the hostile-request suite (test/hostile/) and bench:stall.
 * The service must run in its own process (test/helpers/service.ts): an
 * in-process server would stall the probe together with itself.
 */
import { readFileSync } from 'node:fs';

export interface StallReport {
  /** /healthz answers received while probing. */
  samples: number;
  /** Latency of those answers, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** A /healthz request still unanswered when the probe stopped counts as that long (ms), so a frozen service cannot hide. */
  pendingMs: number;
  /**
   * CPU time the service's main thread ran while each /healthz answer was awaited, ms
   * (Linux schedstat): the part of a stall the service's own event loop caused. On a
   * machine shared with other work, latency also counts the time the thread waited for a
   * core; this does not. A blocked event loop shows in both.
   */
  busyP99Ms: number;
  busyMaxMs: number;
  /** Resident memory of the service process, MB. */
  rssStartMb: number;
  rssPeakMb: number;
}

export interface StallProbe {
  stop(): Promise<StallReport>;
}

/** CPU time a process's main thread has run, ms (/proc/PID/task/PID/schedstat, first field in ns); 0 where unreadable. */
export function mainThreadCpuMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
}

/** Resident set size of a process, MB (Linux). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Starts probing `baseUrl`/healthz (pause `gapMs` between answers) and the memory of `pid` (every 50 ms). */
export function probeStalls(baseUrl: string, pid: number, gapMs = 10): StallProbe {
  const latencies: number[] = [];
  const busy: number[] = [];
  const rssStartMb = rssMb(pid);
  let rssPeakMb = rssStartMb;
  let running = true;
  let pendingSince: number | undefined;
  let pendingCpu0 = 0;
  const memory = setInterval(() => {
    try {
      rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
    } catch {
      /* the process is gone: the caller sees that itself */
    }
  }, 50);
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const cpu0 = mainThreadCpuMs(pid);
      pendingSince = t0;
      pendingCpu0 = cpu0;
      try {
        const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(60_000) });
        await res.arrayBuffer();
      } catch {
        /* a refused or aborted probe still counts its wait */
      }
      pendingSince = undefined;
      latencies.push(performance.now() - t0);
      busy.push(mainThreadCpuMs(pid) - cpu0);
      await new Promise((r) => setTimeout(r, gapMs));
    }
  })();
  return {
    async stop() {
      running = false;
      const pendingMs = pendingSince === undefined ? 0 : performance.now() - pendingSince;
      const pendingBusyMs = pendingSince === undefined ? 0 : mainThreadCpuMs(pid) - pendingCpu0;
      clearInterval(memory);
      // Wait for the request in flight only briefly: a frozen service is reported, not waited for.
      await Promise.race([loop, new Promise((r) => setTimeout(r, 100))]);
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number, xs = sorted) => (xs.length ? xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]! : 0);
      const busySorted = [...busy].sort((a, b) => a - b);
      return {
        samples: sorted.length,
        p50Ms: at(0.5),
        p99Ms: Math.max(at(0.99), pendingMs),
        maxMs: Math.max(sorted.at(-1) ?? 0, pendingMs),
        pendingMs,
        // A request still pending at the end may be waiting on a blocked loop: its CPU time so far counts too.
        busyP99Ms: Math.max(at(0.99, busySorted), pendingBusyMs),
        busyMaxMs: Math.max(busySorted.at(-1) ?? 0, pendingBusyMs),
        rssStartMb,
        rssPeakMb,
      };
    },
  };
}
