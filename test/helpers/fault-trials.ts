/**
 * Fault trials against the real service (see test/integration/store-faults-*.test.ts):
 * fault windows, the verdict that lines every answer up with them, and the figures.
 */
import { expect } from 'vitest';
import type { Sample } from './load.js';
import type { Service } from './service.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
export const now = () => performance.now();

export type FaultKind = 'read-only' | 'missing' | 'unreachable';
/**
 * One fault: injecting it ran from `begin` to `from`, lifting it from `until` to `to`.
 * Between `from` and `until` it is fully in place (every write must be refused);
 * from `begin` to `to` it may be felt.
 */
export interface Window {
  kind: FaultKind;
  /** Which fault (e.g. serverGone), for failure messages. */
  name?: string;
  begin: number;
  from: number;
  until: number;
  to: number;
}

/** Injects a fault, waits, lifts it, and says when each step began and ended. */
export async function faultWindow(kind: FaultKind, on: () => unknown, holdMs: number, off: () => unknown): Promise<Window> {
  const begin = now();
  await on();
  const from = now();
  await sleep(holdMs);
  const until = now();
  await off();
  return { kind, begin, from, until, to: now() };
}

/** How long the service may take to notice a fault, and to notice it is over (/healthz). */
export interface Bounds {
  detectMs: number;
  recoverMs: number;
}

export interface Verdict {
  requests: Record<'read' | 'print' | 'health', number>;
  unavailable503: number;
  /** Any 5xx but 503, and requests that got no answer at all. */
  serverErrors: Sample[];
  readsFailed: Sample[];
  acceptedDuringFault: Sample[];
  refusedOutsideFault: Sample[];
  healthChecked: number;
  healthWrong: Sample[];
  accepted: string[];
  /** The windows judged against, to explain a failure. */
  windows: Window[];
}

const EXPECTED_HEALTH: Record<FaultKind, { status: number; state: string }> = {
  'read-only': { status: 200, state: 'read-only' },
  missing: { status: 200, state: 'missing' },
  unreachable: { status: 503, state: 'unreachable' },
};

/** Lines the samples up with the fault windows. */
export function judge(samples: Sample[], windows: Window[], bounds: Bounds): Verdict {
  const overlaps = (s: Sample, w: Window, slackAfter: number) => s.end >= w.begin && s.start <= w.to + slackAfter;
  const inside = (s: Sample, w: Window, after: number) => s.start >= w.from + after && s.end <= w.until;
  const v: Verdict = {
    requests: { read: 0, print: 0, health: 0 },
    unavailable503: 0,
    serverErrors: [],
    readsFailed: [],
    acceptedDuringFault: [],
    refusedOutsideFault: [],
    healthChecked: 0,
    healthWrong: [],
    accepted: [],
    windows: [...windows],
  };
  for (const s of samples) {
    v.requests[s.kind]++;
    if (s.status === 503) v.unavailable503++;
    if (s.status === 0 || (s.status >= 500 && s.status !== 503)) v.serverErrors.push(s);
    if (s.kind === 'read' && s.status !== 200) {
      // Reads may fail only while the database cannot be read at all.
      if (!windows.some((w) => w.kind === 'unreachable' && overlaps(s, w, bounds.recoverMs))) v.readsFailed.push(s);
    }
    if (s.kind === 'print') {
      if (s.status === 200 && s.info) v.accepted.push(s.info);
      if (s.status === 200 && windows.some((w) => inside(s, w, 5))) v.acceptedDuringFault.push(s);
      if (s.status === 503 && !windows.some((w) => overlaps(s, w, bounds.recoverMs))) v.refusedOutsideFault.push(s);
    }
    if (s.kind === 'health') {
      const w = windows.find((x) => inside(s, x, bounds.detectMs));
      const calm = !windows.some((x) => overlaps(s, x, bounds.recoverMs));
      if (w) {
        v.healthChecked++;
        const want = EXPECTED_HEALTH[w.kind];
        if (s.status !== want.status || s.info !== want.state) v.healthWrong.push(s);
      } else if (calm) {
        v.healthChecked++;
        if (s.status !== 200 || s.info !== 'ok') v.healthWrong.push(s);
      }
    }
  }
  return v;
}

const ms = (t: number) => (Number.isFinite(t) ? `${Math.round(t)}` : '∞');

/** A window's moments on the test's clock (performance.now(), ms). */
export function describeWindow(w: Window): string {
  return `${w.name ?? w.kind} (${w.kind}): begin ${ms(w.begin)}, in place ${ms(w.from)}, lifting ${ms(w.until)}, lifted ${ms(w.to)}`;
}

/**
 * Why a sample failed, for the failure message: its times, the windows around it (the
 * last one lifted before it began and any it overlaps), and the service's log lines for
 * the request (found by its X-Request-Id, times moved onto the test's clock).
 */
export function explainSample(s: Sample, windows: Window[], svc?: Service): string {
  const near = windows.filter((w) => w.begin <= s.end);
  const before = near.filter((w) => w.to <= s.start).at(-1);
  const overlapping = near.filter((w) => w.to > s.start);
  const lines = [
    `${s.kind} ${s.path} -> ${s.status} ${JSON.stringify(s.info ?? s.error ?? '')} (request ${s.requestId ?? '?'}): started ${ms(s.start)}, answered ${ms(s.end)}`,
    before ? `  last window before it: ${describeWindow(before)}; the request started ${ms(s.start - before.to)} ms after it was lifted` : '  no window before it',
    ...overlapping.map((w) => `  overlapping: ${describeWindow(w)}`),
  ];
  const id = s.requestId;
  if (id) lines.push(...logLines(svc, (l) => l.includes(id)).map((l) => `  service log ${l}`));
  return lines.join('\n');
}

/** The service's log lines that match, times moved onto the test's clock. */
function logLines(svc: Service | undefined, match: (line: string) => boolean): string[] {
  if (!svc) return [];
  return svc
    .stdout()
    .split('\n')
    .filter(match)
    .map((l) => {
      const time = /"time":(\d+)/.exec(l)?.[1];
      return `${time ? `at ${ms(Number(time) - performance.timeOrigin)}: ` : ''}${l.slice(0, 600)}`;
    });
}

export function expectTruth(v: Verdict, lost: string[], svc?: Service): void {
  // On a failure, each wrong answer comes with its timing against the windows and the service's own account of it.
  const show = (xs: Sample[]) =>
    xs.length === 0
      ? ''
      : [
          '',
          ...xs.slice(0, 5).map((s) => explainSample(s, v.windows, svc)),
          'all windows:',
          ...v.windows.map(describeWindow),
          'store state changes the service logged:',
          ...logLines(svc, (l) => /writes refused|writes work again/.test(l)).slice(-12),
          '',
        ].join('\n');
  expect(v.serverErrors, show(v.serverErrors)).toHaveLength(0);
  expect(v.readsFailed, show(v.readsFailed)).toHaveLength(0);
  expect(v.acceptedDuringFault, show(v.acceptedDuringFault)).toHaveLength(0);
  expect(v.refusedOutsideFault, show(v.refusedOutsideFault)).toHaveLength(0);
  expect(v.healthWrong, show(v.healthWrong)).toHaveLength(0);
  expect(lost).toEqual([]);
}

export function report(name: string, trials: number, v: Verdict, lost: string[]): void {
  console.log(
    `[store-faults] ${name}: ${trials} fault(s); requests ${v.requests.read} reads, ${v.requests.print} prints (${v.accepted.length} accepted), ` +
      `${v.requests.health} health checks; 503: ${v.unavailable503}; other 5xx or no answer: ${v.serverErrors.length}; ` +
      `reads failed: ${v.readsFailed.length}; accepted while refused: ${v.acceptedDuringFault.length}; lost jobs: ${lost.length}; ` +
      `health checks judged: ${v.healthChecked}, wrong: ${v.healthWrong.length}`,
  );
}

export function merge(into: Verdict, v: Verdict): Verdict {
  for (const k of ['read', 'print', 'health'] as const) into.requests[k] += v.requests[k];
  into.unavailable503 += v.unavailable503;
  into.healthChecked += v.healthChecked;
  for (const k of ['serverErrors', 'readsFailed', 'acceptedDuringFault', 'refusedOutsideFault', 'healthWrong', 'accepted', 'windows'] as const) (into[k] as unknown[]).push(...v[k]);
  return into;
}
export const emptyVerdict = (): Verdict => judge([], [], { detectMs: 0, recoverMs: 0 });

export const BASE_ENV = {
  PRINT_RETRY_BASE_MS: '50',
  PRINT_RETRY_MAX_MS: '300',
  PRINT_MAX_ATTEMPTS: '100',
  PRINT_TIMEOUT_MS: '2000',
  RATE_LIMIT_PER_MINUTE: '1000000',
  PRINT_QUOTA_PER_MINUTE: '1000000000',
};
