/**
 * GET /healthz (operationId getHealth): whether the store can be read and written,
 * for load balancers and operators. Public and cheap (see the spec): the store's
 * health() does one read and, at most every two seconds, one shared probe write.
 * Degraded (reads work, writes refused) is still a 200: labels keep being served.
 */
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { components } from '../../generated/openapi.js';
import type { Store } from '../records/index.js';
import { problemFor, sendJson, sendProblem } from './problems.js';
import { requestLog } from './request-id.js';

type Health = components['schemas']['Health'];
type HealthProblem = components['schemas']['HealthProblem'];

export function healthHandler(store: Store, draining: () => boolean, logger: Logger) {
  return async (_c: unknown, _req: Request, res: Response) => {
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
    const body: Health = { status, store: storeHealth };
    sendJson(res, 200, body);
  };
}
