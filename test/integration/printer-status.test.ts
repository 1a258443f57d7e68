/**
 * A printer's status over HTTP (issue 31), on a real server over a real SQLite file and
 * a real PostgreSQL schema, with a Brother QL peer (SNMP) as the printer:
 * refreshPrinterStatus reads now, stores, and answers the printer with it (404 for an
 * unknown name, device URIs for printers:admin only); /metrics shows each printer's state
 * and the age of its reading; /readyz stays ready while a printer is out of labels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QL_ERROR_1, startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { documentedResponse, problemErrors, schemaErrors } from '../helpers/spec.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';

const PRINTERS = '/v1/labelmaker/printers';
const SPOOL = 'file:///tmp/lm-printer-status-spool';

describe.each([
  ['SQLite', async () => ({ schema: undefined as TestSchema | undefined, env: {} as Record<string, string> })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { schema, env: { DATABASE_URL: schema.url } as Record<string, string> };
    },
  ],
])('printer status over HTTP on %s', (_store, prepare) => {
  let srv: TestServer;
  let schema: TestSchema | undefined;
  let peer: QlPeer;
  beforeAll(async () => {
    peer = await startQlPeer();
    const prepared = await prepare();
    schema = prepared.schema;
    // A long interval: the readings here are the ones the test asks for.
    srv = await startTestServer({ ...prepared.env, PRINTER_URI: SPOOL, METRICS_LISTEN: '127.0.0.1:0', PRINTER_STATUS_INTERVAL_S: '3600' });
    const made = await fetch(`${srv.url}${PRINTERS}/workbench`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Workbench QL-820', deviceUri: peer.uri, model: 'QL-820NWB' }),
    });
    expect(made.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await peer?.close();
    await schema?.drop();
  });

  async function refresh(name: string, token = srv.tokens.printOnly) {
    const res = await fetch(`${srv.url}${PRINTERS}/${name}/status`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json, application/problem+json' } });
    const json = await res.json();
    const doc = documentedResponse('refreshPrinterStatus', res.status);
    expect(doc, `refreshPrinterStatus does not document ${res.status}`).toBeDefined();
    if (res.headers.get('content-type') === 'application/problem+json') expect(problemErrors(json)).toBeUndefined();
    else expect(schemaErrors(doc.content['application/json'].schema, json)).toBeUndefined();
    return { status: res.status, json, etag: res.headers.get('etag') };
  }
  async function scrape(): Promise<string> {
    return (await fetch(srv.metricsUrl!)).text();
  }

  it('reads the printer now, stores it, answers the printer with it; a change at the printer shows on the next call', async () => {
    const before = peer.snmpRequests;
    const ready = await refresh('workbench');
    expect(ready.status).toBe(200);
    expect(peer.snmpRequests).toBe(before + 1);
    expect(ready.json).not.toHaveProperty('deviceUri');
    expect(ready.json.status).toMatchObject({ state: 'ready', reasons: [], media: { widthMm: 62, lengthMm: 0, stocks: ['brother-ql-62'] } });
    // Stored: getPrinter shows the same reading, and the settings' ETag did not move.
    const got = await fetch(`${srv.url}${PRINTERS}/workbench`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
    expect((await got.json()).status).toEqual(ready.json.status);
    expect(got.headers.get('etag')).toBe(ready.etag);

    peer.set({ errors1: QL_ERROR_1.noMedia, media: 'none' });
    const empty = await refresh('workbench', srv.tokens.admin);
    expect(empty.json.status).toMatchObject({ state: 'attention', reasons: ['media-empty'] });
    expect(empty.json.deviceUri).toBe(peer.uri);
    expect(Date.parse(empty.json.status.checkedAt)).toBeGreaterThan(Date.parse(ready.json.status.checkedAt));

    // The metrics show it; readiness does not depend on it.
    const text = await scrape();
    expect(text).toContain('labelmaker_printer_state{printer="workbench",state="attention"} 1');
    expect(text).toContain('labelmaker_printer_state{printer="workbench",state="ready"} 0');
    const age = /labelmaker_printer_status_age_seconds\{printer="workbench"\} ([\d.e+-]+)/.exec(text);
    expect(Number(age?.[1])).toBeLessThan(60);
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);
    peer.set({ errors1: 0, media: 'continuous' });
  });

  it('a folder printer says unknown; an unknown name is a 404; labels:read alone is a 403', async () => {
    const folder = await refresh('default');
    expect(folder.status).toBe(200);
    expect(folder.json.status).toMatchObject({ state: 'unknown', reasons: [], media: null });
    const text = await scrape();
    expect(text).toContain('labelmaker_printer_state{printer="default",state="unknown"} 1');
    expect((await refresh('nobody')).status).toBe(404);
    expect((await refresh('workbench', srv.tokens.read)).status).toBe(403);
    expect((await refresh('Bad_Name')).status).toBe(400);
  });
});
