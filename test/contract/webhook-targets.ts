/**
 * How the server target produces each documented answer of the webhook operations: real
 * conditions, each call on a webhook of its own (registered to a loopback port nothing
 * listens on: its deliveries fail and wait, nothing else is contacted).
 */
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const WEBHOOK_OPS = new Set(['listWebhooks', 'createWebhook', 'getWebhook', 'updateWebhook', 'deleteWebhook', 'listWebhookDeliveries', 'redeliverWebhookEvent']);

const WEBHOOKS = '/v1/labelmaker/webhooks';
export const WEBHOOK_BODY = { url: 'http://127.0.0.1:9/contract', eventTypes: ['print_job.printed'] };
const HUGE_HEADER = { 'X-Padding': 'x'.repeat(17 * 1024) };
const MISSING = `${WEBHOOKS}/wh_0000000000000000`;

async function newWebhook(srv: TestServer): Promise<{ path: string; etag: string }> {
  const res = await fetch(srv.url + WEBHOOKS, {
    method: 'POST',
    headers: { Authorization: `Bearer ${srv.tokens.hooks}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(WEBHOOK_BODY),
  });
  if (res.status !== 201) throw new Error(`could not register a webhook: ${res.status} ${await res.text()}`);
  return { path: res.headers.get('location')!, etag: res.headers.get('etag')! };
}

export async function webhookCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const token = srv.tokens.hooks;
  const common = (call: Call): Call | undefined => {
    switch (status) {
      case 401: return { ...call, token: null };
      case 403: return { ...call, token: srv.tokens.admin }; // printers:admin does not register webhooks
      case 406: return { ...call, headers: { ...call.headers, Accept: 'image/png' } };
      case 408: return { ...call, stall: true };
      case 431: return { ...call, headers: { ...call.headers, ...HUGE_HEADER } };
      default: return undefined;
    }
  };
  const withBody = (call: Call): Call | undefined => {
    switch (status) {
      case 413: return { ...call, body: undefined, rawBody: { type: 'application/json', data: JSON.stringify({ ...(call.body as object), description: 'x'.repeat(20_000) }) } };
      case 415: return { ...call, body: undefined, rawBody: { type: 'text/plain', data: JSON.stringify(call.body) } };
      default: return common(call);
    }
  };
  switch (operationId) {
    case 'listWebhooks': {
      const call: Call = { path: WEBHOOKS, token };
      if (status === 200) return call;
      if (status === 400) return { ...call, path: `${WEBHOOKS}?x=%FF` };
      return common(call);
    }
    case 'createWebhook': {
      const call: Call = { path: WEBHOOKS, method: 'POST', token, body: WEBHOOK_BODY };
      if (status === 201) return call;
      if (status === 400) return { ...call, body: { ...WEBHOOK_BODY, eventTypes: ['label.exploded'] } };
      if (status === 422) return { ...call, body: { ...WEBHOOK_BODY, url: 'https://user:pw@example.com/hook' } };
      return withBody(call);
    }
    case 'getWebhook': {
      if (status === 200) return { path: (await newWebhook(srv)).path, token };
      if (status === 400) return { path: `${WEBHOOKS}/not-an-id`, token };
      if (status === 404) return { path: MISSING, token };
      return common({ path: MISSING, token });
    }
    case 'updateWebhook': {
      const patch = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'PATCH', token, body: { enabled: false }, ...extra });
      switch (status) {
        case 200: {
          const w = await newWebhook(srv);
          return patch(w.path, { headers: { 'If-Match': w.etag } });
        }
        case 400: return patch(MISSING, { body: { colour: 'red' } });
        case 404: return patch(MISSING);
        case 412: return patch((await newWebhook(srv)).path, { headers: { 'If-Match': '"stale"' } });
        case 422: return patch((await newWebhook(srv)).path, { body: { url: 'http://user@example.com/' } });
        default: return withBody(patch(MISSING));
      }
    }
    case 'deleteWebhook': {
      const del = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'DELETE', token, ...extra });
      switch (status) {
        case 204: {
          const w = await newWebhook(srv);
          return del(w.path, { headers: { 'If-Match': w.etag } });
        }
        case 400: return del(`${WEBHOOKS}/not-an-id`);
        case 404: return del(MISSING);
        case 412: return del((await newWebhook(srv)).path, { headers: { 'If-Match': '"stale"' } });
        default: return common(del(MISSING));
      }
    }
    case 'listWebhookDeliveries': {
      switch (status) {
        case 200: return { path: `${(await newWebhook(srv)).path}/deliveries?limit=5`, token };
        case 400: return { path: `${MISSING}/deliveries?limit=0`, token };
        case 404: return { path: `${MISSING}/deliveries`, token };
        default: return common({ path: `${MISSING}/deliveries`, token });
      }
    }
    case 'redeliverWebhookEvent': {
      const post = (path: string, extra: Partial<Call> = {}): Call => ({ path: `${path}/deliveries`, method: 'POST', token, body: { eventId: 1 }, ...extra });
      switch (status) {
        case 202: {
          const w = await newWebhook(srv);
          await srv.store.events.append([{ type: 'print_job.printed', subject: { kind: 'print_job', id: 'contract' }, data: {} }]);
          return post(w.path, { body: { eventId: await srv.store.events.latest() } });
        }
        case 400: return post(MISSING, { body: { eventId: 0 } });
        case 404: return post(MISSING);
        default: return withBody(post(MISSING));
      }
    }
    default:
      return undefined;
  }
}
