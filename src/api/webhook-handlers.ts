/**
 * The webhook operations (createWebhook, listWebhooks, getWebhook, updateWebhook,
 * deleteWebhook, listWebhookDeliveries, redeliverWebhookEvent; scope webhooks:admin).
 * Thin: delivery is src/events/webhooks.ts's, the rows the store's. The spec router has
 * checked the id, the headers' form and the body's schema (https/http, lengths, event types).
 *
 * The secret is made here, answered once in createWebhook's 201 and never again: no
 * other answer carries it and nothing logs it (the access log has no bodies).
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { Webhook, WebhookDelivery, WebhookStore } from '../records/index.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { ifMatchHolds } from './templates.js';

export const WEBHOOKS_PATH = '/v1/labelmaker/webhooks';

type WebhookBody = components['schemas']['Webhook'];
type DeliveryBody = components['schemas']['WebhookDelivery'];

export interface WebhookHandlerDeps {
  webhooks: WebhookStore;
  /** Looks for due deliveries now (a redelivery). */
  wake(): void;
}

/** The checks the schema cannot make: a URL that parses, with a host, without credentials. */
export function webhookUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '/url: not a URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return '/url: a webhook URL is https:// or http://.';
  if (url.username || url.password) return '/url: a webhook URL must not carry a user name or password (put a token in its path or query instead).';
  if (!url.hostname) return '/url: a webhook URL needs a host.';
  return undefined;
}

export function webhookHandlers({ webhooks, wake }: WebhookHandlerDeps): Pick<Handlers, 'listWebhooks' | 'createWebhook' | 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'listWebhookDeliveries' | 'redeliverWebhookEvent'> {
  const notFound = (id: string) => new HttpProblem('not-found', `No webhook has the id ${id}.`);
  const changed = (id: string) => new HttpProblem('precondition-failed', `The webhook ${id} changed since your If-Match; read it again and reapply your change.`);
  const checkUrl = (url: string | undefined) => {
    const problem = url === undefined ? undefined : webhookUrlProblem(url);
    if (problem) throw new HttpProblem('invalid-webhook', problem);
  };

  return {
    async listWebhooks(_c, _req, res) {
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, { webhooks: (await webhooks.list()).map(webhookResource) });
    },

    async createWebhook(c, _req, res) {
      const body = c.request.requestBody;
      checkUrl(body.url);
      const secret = `whsec_${randomBytes(32).toString('base64url')}`;
      const saved = await webhooks.create({
        id: `wh_${randomBytes(8).toString('hex')}`,
        url: body.url,
        description: body.description ?? '',
        eventTypes: body.eventTypes,
        enabled: body.enabled ?? true,
        secret,
      });
      res.set({ ETag: saved.etag, 'Cache-Control': 'no-store', Location: `${WEBHOOKS_PATH}/${saved.id}` });
      sendJson(res, 201, { ...webhookResource(saved), secret });
    },

    async getWebhook(c, _req, res) {
      const saved = await webhooks.get(c.request.params.webhookId);
      if (!saved) throw notFound(c.request.params.webhookId);
      res.set({ ETag: saved.etag, 'Cache-Control': 'no-store' });
      sendJson(res, 200, webhookResource(saved));
    },

    async updateWebhook(c, req, res) {
      const { webhookId } = c.request.params;
      const body = c.request.requestBody;
      checkUrl(body.url);
      const ifMatch = req.get('If-Match')?.trim();
      const current = await webhooks.get(webhookId);
      if (!current) throw notFound(webhookId);
      if (ifMatch && !ifMatchHolds(ifMatch, current.etag)) throw changed(webhookId);
      const saved = await webhooks.update(webhookId, { url: body.url, description: body.description, eventTypes: body.eventTypes, enabled: body.enabled }, current.etag);
      if (saved === 'missing') throw notFound(webhookId);
      if (saved === 'changed') throw changed(webhookId);
      res.set({ ETag: saved.etag, 'Cache-Control': 'no-store' });
      sendJson(res, 200, webhookResource(saved));
    },

    async deleteWebhook(c, req, res) {
      const { webhookId } = c.request.params;
      const ifMatch = req.get('If-Match')?.trim();
      const current = await webhooks.get(webhookId);
      if (!current) throw notFound(webhookId);
      if (ifMatch && !ifMatchHolds(ifMatch, current.etag)) throw changed(webhookId);
      if (!(await webhooks.delete(webhookId))) throw notFound(webhookId);
      res.status(204).end();
    },

    async listWebhookDeliveries(c, _req, res) {
      const { webhookId } = c.request.params;
      if (!(await webhooks.get(webhookId))) throw notFound(webhookId);
      const list = await webhooks.deliveries(webhookId, c.request.query.limit ?? 20);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, { deliveries: list.map(deliveryResource) });
    },

    async redeliverWebhookEvent(c, _req, res) {
      const { webhookId } = c.request.params;
      if (!(await webhooks.get(webhookId))) throw notFound(webhookId);
      const { eventId } = c.request.requestBody;
      const delivery = await webhooks.redeliver(webhookId, eventId);
      if (!delivery) throw new HttpProblem('not-found', `No event has the id ${eventId}.`);
      wake();
      res.set('Cache-Control', 'no-store');
      sendJson(res, 202, deliveryResource(delivery));
    },
  };
}

export function webhookResource(w: Webhook): WebhookBody {
  return { id: w.id, url: w.url, description: w.description, eventTypes: w.eventTypes, enabled: w.enabled, createdAt: w.createdAt, updatedAt: w.updatedAt };
}

export function deliveryResource(d: WebhookDelivery): DeliveryBody {
  return {
    id: d.id,
    eventId: d.eventId,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    deliveredAt: d.deliveredAt,
  };
}
