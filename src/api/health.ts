/**
 * GET /healthz (operationId getHealth): whether the store can be read and written,
 * for load balancers and operators (not for liveness: /livez below). Public and cheap (see the spec): the store's
 * health() does one read and, at most every two seconds, one shared probe write.
 * Degraded (reads work, writes refused) is still a 200: labels keep being served.
 */
import type { Logger } from 'pino';
import type { components } from '../../generated/openapi.js';
import type { Store } from '../records/index.js';
import type { Handler } from './operations.js';
import { problemFor, sendJson, sendProblem } from './problems.js';
import { VERSION } from '../version.js';
import { requestLog } from './request-id.js';

type Health = components['schemas']['Health'];
type HealthProblem = components['schemas']['HealthProblem'];
type Liveness = components['schemas']['Liveness'];

/**
 * GET /livez (operationId getLiveness): the process serves requests. It asks nothing
 * else, not even while draining: a liveness probe restarts what fails it, and an
 * unreachable database or a shutdown in progress is no reason to restart (see the spec).
 */
export function livenessHandler(): Handler<'getLiveness'> {
  const body: Liveness = { status: 'alive' };
  return async (_c, _req, res) => {
    res.set('Cache-Control', 'no-store');
    sendJson(res, 200, body);
  };
}

export function healthHandler(store: Store, draining: () => boolean, logger: Logger): Handler<'getHealth'> {
  return async (_c, _req, res) => {
    res.set('Cache-Control', 'no-store');
    // Draining: tell load balancers to stop sending traffic here.
    if (draining()) return sendProblem(res, 'unavailable', 'The server is shutting down.', { 'Retry-After': '1' });
    const { status, state, reads, writes, detail, since } = await store.health();
    const storeHealth: Health['store'] = { state, reads, writes, ...(detail ? { detail } : {}), since };
    if (status === 'unavailable') {
      requestLog(res, logger).warn({ store: storeHealth }, 'health check: the store cannot be read');
      const body: HealthProblem = { ...problemFor(res, 'unavailable', storeHealth.detail ?? 'The record store is unreachable.'), store: storeHealth };
      res.set('Retry-After', '5');
      sendJson(res, 503, body, 'application/problem+json');
      return;
    }
    const body: Health = { status, version: VERSION, store: storeHealth };
    sendJson(res, 200, body);
  };
}
