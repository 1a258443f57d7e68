/**
 * GET /readyz (operationId getReadiness): whether this instance should get traffic.
 * Unlike /healthz (cheap, answers from what the store last saw) and /livez (the process only), it asks:
 * - the store: a real query, answered within READY_STORE_TIMEOUT_MS;
 * - when printing is configured, this instance's print worker: alive and coming
 *   round its loop (a worker that cannot reach the queue or hangs is not ready);
 * - with render threads, the label engine: not pausing between restarts.
 * 503 (a problem with the same `checks`) when any check fails or the server is draining.
 */
import type { Logger } from 'pino';
import type { components } from '../../generated/openapi.js';
import type { WorkerHealth } from '../printing/index.js';
import type { Store } from '../records/index.js';
import type { Handler } from './operations.js';
import { problemFor, sendJson } from './problems.js';
import { requestLog } from './request-id.js';

type Readiness = components['schemas']['Readiness'];
type ReadinessProblem = components['schemas']['ReadinessProblem'];
type Checks = Readiness['checks'];
type Check = components['schemas']['ReadinessCheck'];

/** A store that does not answer a read within this is not ready (the load balancer moves on). */
export const READY_STORE_TIMEOUT_MS = 2_000;

export interface ReadinessDeps {
  store: Pick<Store, 'ping'>;
  /** This instance's print worker, when printing is configured. */
  printWorker?: () => WorkerHealth;
  /** The render threads, when labels are drawn off the event loop. */
  renderer?: () => Check;
  draining: () => boolean;
  logger: Logger;
}

export function readinessHandler({ store, printWorker, renderer, draining, logger }: ReadinessDeps): Handler<'getReadiness'> {
  // Probes arriving together share one query: a flood of probes costs the database one read at a time.
  let checking: Promise<Check> | undefined;
  return async (_c, _req, res) => {
    res.set('Cache-Control', 'no-store');
    checking ??= storeCheck(store).finally(() => {
      checking = undefined;
    });
    const checks: Checks = { store: await checking };
    if (printWorker) checks.printWorker = printWorker();
    if (renderer) checks.renderer = renderer();
    const failing = Object.entries(checks).filter(([, check]) => !check?.ok);
    if (!draining() && failing.length === 0) {
      const body: Readiness = { status: 'ready', checks };
      return sendJson(res, 200, body);
    }
    const detail = draining() ? 'The server is shutting down.' : `Not ready: ${failing.map(([name, check]) => `${name}: ${check?.detail}`).join('; ')}`;
    if (!draining()) requestLog(res, logger).warn({ checks }, 'readiness check failed');
    const body: ReadinessProblem = { ...problemFor(res, 'unavailable', detail), checks };
    res.set('Retry-After', draining() ? '1' : '5');
    sendJson(res, 503, body, 'application/problem+json');
  };
}

async function storeCheck(store: Pick<Store, 'ping'>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), READY_STORE_TIMEOUT_MS);
  });
  try {
    await Promise.race([store.ping(), timeout]);
    return { ok: true };
  } catch (err) {
    const timedOut = (err as Error)?.message === 'timeout';
    return { ok: false, detail: timedOut ? `The database did not answer a read within ${READY_STORE_TIMEOUT_MS / 1000} seconds.` : 'The database cannot be read.' };
  } finally {
    clearTimeout(timer);
  }
}
