/**
 * The status poller alone releases a held job (issue 31): a real server over a real SQLite
 * file polling every second (PRINTER_STATUS_INTERVAL_S=1), a Brother QL peer (SNMP status,
 * raw raster port) with 62 × 29 mm labels loaded, and a label for the 62 mm continuous roll
 * named onto it. The job is held with the reason (read through the jobs API); the roll is
 * changed at the printer, and with no request to the service in between, the poller's next
 * reading releases it: the peer receives it, once, and the job is `printed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('the status poller releases a job held for the wrong roll once the printer reports the right one', () => {
  let srv: TestServer;
  let ql: QlPeer;

  const get = async (path: string): Promise<Json> => {
    const res = await fetch(srv.url + path, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
    expect(res.status, path).toBe(200);
    return res.json();
  };
  /** Reads (GET only) until `done` holds; the poller does the work. */
  const until = async <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    ql = await startQlPeer({ media: 'die-cut', widthMm: 62, lengthMm: 29 });
    srv = await startTestServer({ PRINTER_URI: 'file:///tmp/lm-poller-release-spool', PRINTER_STATUS_INTERVAL_S: '1', PRINT_RETRY_BASE_MS: '200', PRINT_RETRY_MAX_MS: '400' });
    const made = await fetch(`${srv.url}/v1/labelmaker/printers/workbench`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Workbench QL-820', deviceUri: ql.uri, model: 'QL-820NWB' }),
    });
    expect(made.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await srv?.stop();
    await ql?.close();
  });

  it('held with the reason while the 29 mm labels are loaded; printed once by itself after the roll change', async () => {
    // The poller reads the new printer on its own.
    await until('the first reading', () => get('/v1/labelmaker/printers/workbench'), (p) => p.status?.media?.lengthMm === 29);
    const printed = await fetch(`${srv.url}/v1/labelmaker/item/tape-measure?template=brother-ql-62&print=true&printer=workbench`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
    expect(printed.status).toBe(200);
    const jobPath = printed.headers.get('Print-Job')!;
    const held = await get(jobPath);
    expect(held).toMatchObject({ printer: 'workbench', state: 'queued', attempts: 0 });
    expect(held.heldReason).toBe('Workbench QL-820 has 62 × 29 mm labels (DK-11209) loaded; this label needs Brother QL 62 mm continuous (DK-22205).');
    // Several readings of the same roll: still held, nothing sent.
    const readings = ql.snmpRequests;
    await until('three more readings', async () => ql.snmpRequests, (n) => n >= readings + 3, 10_000);
    expect(await get(jobPath)).toMatchObject({ state: 'queued', heldReason: held.heldReason });
    expect(ql.sink.received()).toHaveLength(0);

    // The roll is changed at the printer; the service is not asked anything until the job has arrived.
    const changedAt = Date.now();
    ql.set({ media: 'continuous', widthMm: 62, lengthMm: 0 });
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the job did not reach the printer within 15 s of the roll change')), 15_000).unref());
    const { job, refused } = await Promise.race([ql.nextPrint(), late]);
    const tookMs = Date.now() - changedAt;
    expect(refused).toBe(false);
    expect(job).toMatchObject({ widthMm: 62, mediaType: 0x0a, twoColour: false });
    // Within a couple of poll intervals (1 s each) and the delivery.
    expect(tookMs).toBeLessThan(8_000);

    const done = await until('the job printed', () => get(jobPath), (j) => j.state === 'printed');
    expect(done).toMatchObject({ heldReason: null, attempts: 1, possibleDuplicate: false });
    // Exactly once, also after a few more readings.
    const after = ql.snmpRequests;
    await until('two more readings', async () => ql.snmpRequests, (n) => n >= after + 2, 10_000);
    expect(ql.sink.received()).toHaveLength(1);
  }, 90_000);
});
