/**
 * How the contract targets produce each documented answer of the integration
 * operations (Homebox, Grocy) and printImage: real conditions on the server,
 * the mock answers the spec's example request (suite.ts exampleCall). Kept apart from
 * targets.ts, which calls in here.
 */
import { randomUUID } from 'node:crypto';
import { createToken } from '../../src/commands.js';
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const INTEGRATION_OPS = new Set(['getHomeboxLabel', 'printHomeboxLabel', 'printGrocyLabel', 'printImage']);

/**
 * prism proxy re-encodes binary request bodies as text, so a PNG reaches the server
 * corrupted: the answers that need a valid image (accepted, replayed, key reused) are
 * checked on the server and the mock only.
 */
export const PROXY_CORRUPTS_BODY = new Set(['printImage', 'printHomeboxLabel'].flatMap((op) => [200, 202, 422].map((status) => `${op} ${status}`)));

/** Homebox's query for an item label (relative URL: the server adds PUBLIC_BASE_URL). */
const HOMEBOX_QUERY = 'DescriptionText=%0ALocation%3A+Garage&Dpi=72.000000&Height=200&TitleText=Cordless+drill&URL=%2Fitem%2F6f1c2a9e-4b3d-4c5e-8f7a-1b2c3d4e5f60&Width=526';
const GROCY_BODY = { product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' };
/** A key of the right shape that no server knows (the mock checks only the shape). */
export const SHAPED_KEY = `lm_abcdefgh_${'A'.repeat(43)}`;
/** Past the 4 MiB image limit: a 413. */
const HUGE_PNG = Buffer.alloc(4 * 1024 * 1024 + 1024, 0x41);
const NOT_PNG = Buffer.from('GIF89a not a png');

const paths = (key: string) => ({
  getHomeboxLabel: `/v1/integrations/homebox/${key}/labels/brother-ql-62x29?${HOMEBOX_QUERY}`,
  printHomeboxLabel: `/v1/integrations/homebox/${key}/print-jobs/brother-ql-62x29`,
  printGrocyLabel: `/v1/integrations/grocy/${key}/brother-ql-62x29`,
  printImage: '/v1/labelmaker/print-jobs/images?template=brother-ql-62x29',
});

interface Keys {
  key: string;
  renderOnly: string;
  /** Two different label PNGs to print. */
  pngs: [Buffer, Buffer];
}
const keysOf = new WeakMap<TestServer, Promise<Keys>>();

function keys(srv: TestServer): Promise<Keys> {
  let k = keysOf.get(srv);
  if (!k) {
    k = (async () => {
      const key = (await createToken(srv.store, 'contract-integration', ['integrations:render', 'integrations:print'])).token;
      const renderOnly = (await createToken(srv.store, 'contract-render', ['integrations:render'])).token;
      const png = async (title: string) => Buffer.from(await (await fetch(`${srv.url}/v1/integrations/homebox/${key}/labels/brother-ql-62x29?TitleText=${title}&URL=/item/x`)).arrayBuffer());
      return { key, renderOnly, pngs: [await png('One'), await png('Two')] as [Buffer, Buffer] };
    })();
    keysOf.set(srv, k);
  }
  return k;
}

/** An integration key of the test server (with both integration scopes). */
export async function integrationKey(srv: TestServer): Promise<string> {
  return (await keys(srv)).key;
}

export async function integrationCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const { key, renderOnly, pngs } = await keys(srv);
  const p = paths(key);
  if (operationId === 'getHomeboxLabel') {
    // Homebox sends no credentials but the key in the path.
    switch (status) {
      case 200: return { path: p.getHomeboxLabel, token: null, headers: { Accept: 'image/*', 'User-Agent': 'Homebox-LabelMaker/1.0' } };
      case 400: return { path: p.getHomeboxLabel.replace('brother-ql-62x29', 'no-such-template'), token: null };
      case 401: return { path: paths(SHAPED_KEY).getHomeboxLabel, token: null };
      case 403: return { path: paths(srv.tokens.print).getHomeboxLabel, token: null };
      case 406: return { path: p.getHomeboxLabel, token: null, headers: { Accept: 'application/json' } };
      default: return undefined;
    }
  }
  if (operationId === 'printGrocyLabel') {
    switch (status) {
      case 202: return { path: p.printGrocyLabel, method: 'POST', body: GROCY_BODY, token: null };
      case 400: return { path: p.printGrocyLabel, method: 'POST', body: { product: 'Milk' }, token: null };
      case 401: return { path: paths(SHAPED_KEY).printGrocyLabel, method: 'POST', body: GROCY_BODY, token: null };
      case 403: return { path: paths(renderOnly).printGrocyLabel, method: 'POST', body: GROCY_BODY, token: null };
      case 406: return { path: p.printGrocyLabel, method: 'POST', body: GROCY_BODY, token: null, headers: { Accept: 'image/png' } };
      case 413: return { path: p.printGrocyLabel, method: 'POST', rawBody: { type: 'application/json', data: JSON.stringify({ ...GROCY_BODY, pad: 'x'.repeat(4 * 1024 * 1024) }) }, token: null };
      case 415: return { path: p.printGrocyLabel, method: 'POST', rawBody: { type: 'text/plain', data: 'grcy:p:12' }, token: null };
      // A stock entry's grocycode as Code 128 (308 modules) on 23 mm square stock.
      case 422: return { path: `${p.printGrocyLabel.replace('brother-ql-62x29', 'brother-ql-23x23')}?code=code128`, method: 'POST', body: GROCY_BODY, token: null };
      default: return undefined;
    }
  }
  // The two image operations: printHomeboxLabel (key in the path) and printImage (bearer token).
  const homebox = operationId === 'printHomeboxLabel';
  const path = homebox ? p.printHomeboxLabel : p.printImage;
  const token = homebox ? null : undefined;
  const image = (data: Buffer, headers: Record<string, string> = {}, over: Partial<Call> = {}): Call => ({ path, method: 'POST', rawBody: { type: 'image/png', data }, token, headers, ...over });
  const idem = { 'Idempotency-Key': `contract-${randomUUID()}` };
  switch (status) {
    case 200: {
      await fetch(srv.url + path, { method: 'POST', headers: { 'Content-Type': 'image/png', Authorization: `Bearer ${srv.tokens.print}`, ...idem }, body: new Uint8Array(pngs[0]) });
      return image(pngs[0], idem);
    }
    case 202: return image(pngs[0]);
    case 400: return image(NOT_PNG);
    case 401: return homebox ? image(pngs[0], {}, { path: paths(SHAPED_KEY).printHomeboxLabel }) : image(pngs[0], {}, { token: null });
    case 403: return homebox ? image(pngs[0], {}, { path: paths(renderOnly).printHomeboxLabel }) : image(pngs[0], {}, { token: srv.tokens.read });
    case 406: return image(pngs[0], { Accept: 'image/png' });
    case 413: return image(HUGE_PNG);
    case 415: return { path, method: 'POST', rawBody: { type: 'application/octet-stream', data: pngs[0] }, token };
    case 422: {
      await fetch(srv.url + path, { method: 'POST', headers: { 'Content-Type': 'image/png', Authorization: `Bearer ${srv.tokens.print}`, ...idem }, body: new Uint8Array(pngs[0]) });
      return image(pngs[1], idem);
    }
    default: return undefined;
  }
}
