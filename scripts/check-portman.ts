/**
 * `npm run check:portman`: a third-party contract tester over the spec. Portman turns
 * spec/openapi.yaml into a Postman collection with contract tests (status, media
 * type, JSON schema of the body, documented headers) and Newman runs it against a
 * real server with the demo data. Offline: both run from node_modules, and the
 * server is on loopback. Exits with Newman's status.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { startServer } from '../src/api/server.js';
import { createToken, seedDemo } from '../src/commands.js';
import { loadConfig } from '../src/config.js';
import { DEMO_ITEMS } from '../src/records/demo.js';
import { openStore } from '../src/records/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Operations whose body is a PNG (see contractTests below). */
const IMAGE_BODY_OPS = ['printImage', 'printHomeboxLabel'];
/** Operations whose credential is an integration key in the path (x-key-in-path). */
const KEY_IN_PATH_OPS = ['getHomeboxLabel', 'printHomeboxLabel', 'printGrocyLabel'];
const dir = mkdtempSync(join(tmpdir(), 'lm-portman-'));
let exitCode = 1;
try {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`,
    PRINTER_URI: pathToFileURL(join(dir, 'printed')).href,
    PUBLIC_BASE_URL: 'https://inventory.example.test',
  });
  const store = await openStore(config.databaseUrl);
  const { token } = await seedDemo(store);
  const server = await startServer({ config, store, logger: pino({ level: 'silent' }) });
  try {
    // getPrintJob needs a job that exists: print the demo asset once.
    const printed = await fetch(`${server.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${token}` } });
    const jobId = printed.headers.get('print-job')?.split('/').pop();
    if (!printed.ok || !jobId) throw new Error(`could not create a print job: ${printed.status}`);
    // getPrintBatch needs a batch that exists: print the demo asset as a batch of one.
    const batch = await fetch(`${server.url}/v1/labelmaker/print-jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ selection: { records: [{ kind: 'asset', id: '000-001' }] } }),
    });
    const batchId = batch.headers.get('location')?.split('/').pop();
    if (!batch.ok || !batchId) throw new Error(`could not create a print batch: ${batch.status}`);
    // getLabelTemplate needs a saved template: save the one the spec's examples name.
    const saved = await fetch(`${server.url}/v1/labelmaker/templates/asset-tags`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'assetId' }], codes: ['qr'] }),
    });
    if (!saved.ok) throw new Error(`could not save a template: ${saved.status} ${await saved.text()}`);
    // deleteLabelTemplate needs one to delete, at its ETag.
    const doomed = await fetch(`${server.url}/v1/labelmaker/templates/portman-delete`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ stock: 'brother-ql-62x29' }),
    });
    const doomedEtag = doomed.headers.get('etag');
    if (!doomed.ok || !doomedEtag) throw new Error(`could not save a template to delete: ${doomed.status}`);
    // getSheetCalibration needs a saved calibration for the product the spec's examples name (putSheetCalibration then replaces it, deleteSheetCalibration clears it).
    await store.calibrations.put({ sheet: 'avery-l7160', offsetXMm: 0, offsetYMm: 0, updatedAt: new Date().toISOString() });
    // getPrinter and putPrinter name the spec's example printer (putPrinter then replaces it); deletePrinter one of its own.
    for (const name of ['workbench', 'portman-delete']) {
      const made = await fetch(`${server.url}/v1/labelmaker/printers/${name}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
        body: JSON.stringify({ title: `Portman ${name}`, deviceUri: pathToFileURL(join(dir, `printer-${name}`)).href }),
      });
      if (made.status !== 201) throw new Error(`could not define the printer ${name}: ${made.status} ${await made.text()}`);
    }
    // getPrintRule and deletePrintRule need a rule each (createPrintRule's example names the demo's Workshop and the printer workbench made above).
    const ruleIds: string[] = [];
    for (const name of ['portman-get', 'portman-delete']) {
      const made = await fetch(`${server.url}/v1/labelmaker/print-rules`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, locationId: 'eb72c4c9-1daf-4b50-8e0a-30e296d9f3b2', kinds: ['item'], triggers: ['created'], template: 'brother-ql-62x29' }),
      });
      if (made.status !== 201) throw new Error(`could not create the print rule ${name}: ${made.status} ${await made.text()}`);
      ruleIds.push(((await made.json()) as { id: string }).id);
    }
    // The integration operations take an integration key in the path (the demo token is not one).
    // deleteRecord needs a record to delete, at its ETag (the demo token has records:write).
    const doomedRecord = await fetch(`${server.url}/v1/labelmaker/records/items/portman-delete`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ name: 'Portman delete' }),
    });
    const doomedRecordEtag = doomedRecord.headers.get('etag');
    if (doomedRecord.status !== 201 || !doomedRecordEtag) throw new Error(`could not create a record to delete: ${doomedRecord.status} ${await doomedRecord.text()}`);
    const { token: integrationKey } = await createToken(store, 'portman-integrations', ['integrations:render', 'integrations:print']);
    if (!token) throw new Error('the demo data came without a token');
    const failedJobId = await heldJob(store, token, pathToFileURL(join(dir, 'printed')).href, (id, owner) => store.printJobs.markFailed(id, owner, 'connect ECONNREFUSED 127.0.0.1:9100'));
    // cancelPrintJob needs a job still waiting: one due again in an hour.
    const waitingJobId = await heldJob(store, token, pathToFileURL(join(dir, 'printed')).href, (id, owner) =>
      store.printJobs.markRetry(id, owner, 'connect ECONNREFUSED 127.0.0.1:9100', new Date(Date.now() + 3_600_000).toISOString()),
    );

    // movePrintJob needs another job still waiting (cancelPrintJob's is cancelled by then).
    const movableJobId = await heldJob(store, token, pathToFileURL(join(dir, 'printed')).href, (id, owner) =>
      store.printJobs.markRetry(id, owner, 'connect ECONNREFUSED 127.0.0.1:9100', new Date(Date.now() + 3_600_000).toISOString()),
    );

    // The webhook operations name a webhook of their own (the spec's example id is random at
    // creation): one kept (getWebhook, updateWebhook, the deliveries), one deleted; redelivery
    // an event that exists. Their URL is a loopback port nothing listens on.
    const hook = async () => {
      const res = await fetch(`${server.url}/v1/labelmaker/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/portman', eventTypes: ['print_job.printed'] }),
      });
      if (res.status !== 201) throw new Error(`could not register a webhook: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const keptHook = await hook();
    const doomedHook = await hook();
    await store.events.append([{ type: 'print_job.printed', subject: { kind: 'print_job', id: 'portman' }, data: {} }]);
    const eventId = await store.events.latest();

    // The agent operations act for the spec's example agent `shed`, with a token of its own
    // (named as it), on its printer `shed-ql`: reportAgentJob needs a job the agent holds
    // (claimed here), claimAgentJob another one due.
    const { token: agentToken } = await createToken(store, 'shed', ['printers:agent']);
    const shed = await fetch(`${server.url}/v1/labelmaker/printers/shed-ql`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ title: 'Portman shed', deviceUri: pathToFileURL(join(dir, 'printer-shed')).href, agent: 'shed' }),
    });
    if (shed.status !== 201) throw new Error(`could not define the agent's printer: ${shed.status} ${await shed.text()}`);
    const printForShed = async () => {
      const res = await fetch(`${server.url}/v1/labelmaker/assets/000-001?print=true&printer=shed-ql`, { headers: { Authorization: `Bearer ${token}` } });
      if (!res.ok) throw new Error(`could not print for the agent: ${res.status}`);
    };
    await printForShed();
    const claim = await fetch(`${server.url}/v1/labelmaker/agents/shed/claims`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${agentToken}`, 'Content-Type': 'application/json' },
      // The longest lease: portman converts the spec before newman reports the outcome, which takes
      // over a minute on a loaded machine (the default 60 s lease then ran out: a 409 lease-lost).
      body: JSON.stringify({ waitSeconds: 0, leaseSeconds: 600 }),
    });
    if (claim.status !== 200) throw new Error(`the agent could not claim its job: ${claim.status} ${await claim.text()}`);
    const held = (await claim.json()) as { id: string; lease: string };
    await printForShed();
    const AGENT_OPS = ['listAgentPrinters', 'claimAgentJob', 'reportAgentJob', 'reportAgentPrinterStatus'];

    const portmanConfig = {
      version: 1.0,
      tests: {
        // The image operations take a binary PNG body, which Portman's generated requests cannot carry:
        // their successes are checked by the contract suites (test/contract/) and test/homebox-grocy/;
        // here they still get the Unauthorized variation below.
        contractTests: [
          { openApiOperation: '*::/*', excludeForOperations: IMAGE_BODY_OPS, statusSuccess: { enabled: true } },
          { openApiOperation: '*::/*', excludeForOperations: IMAGE_BODY_OPS, contentType: { enabled: true } },
          { openApiOperation: '*::/*', excludeForOperations: IMAGE_BODY_OPS, jsonBody: { enabled: true } },
          { openApiOperation: '*::/*', excludeForOperations: IMAGE_BODY_OPS, schemaValidation: { enabled: true } },
          { openApiOperation: '*::/*', excludeForOperations: IMAGE_BODY_OPS, headersPresent: { enabled: true } },
        ],
        // Variations: the documented refusals, with their problem bodies checked against the spec too.
        variationTests: [
          {
            openApiOperation: '*::/*',
            excludeForOperations: KEY_IN_PATH_OPS,
            variations: [
              {
                name: 'Unauthorized',
                openApiResponse: '401',
                overwrites: [{ overwriteRequestSecurity: { remove: true } }],
                tests: { contractTests: [{ statusCode: { enabled: true } }, { contentType: { enabled: true } }, { jsonBody: { enabled: true } }, { schemaValidation: { enabled: true } }] },
              },
            ],
          },
          {
            // Their credential is the key in the path: a well-formed key no one created.
            openApiOperationIds: KEY_IN_PATH_OPS,
            variations: [
              {
                name: 'Unknown integration key',
                openApiResponse: '401',
                overwrites: [{ overwriteRequestPathVariables: [{ key: 'key', value: `lm_abcdefgh_${'A'.repeat(43)}`, overwrite: true }] }],
                tests: { contractTests: [{ statusCode: { enabled: true } }, { contentType: { enabled: true } }, { jsonBody: { enabled: true } }, { schemaValidation: { enabled: true } }] },
              },
            ],
          },
          {
            openApiOperation: 'GET::/v1/labelmaker/assets/{id}',
            variations: [
              {
                name: 'Invalid template',
                openApiResponse: '400',
                overwrites: [{ overwriteRequestQueryParams: [{ key: 'template', value: 'a4-sheet', insert: true }] }],
                tests: { contractTests: [{ statusCode: { enabled: true } }, { contentType: { enabled: true } }, { jsonBody: { enabled: true } }, { schemaValidation: { enabled: true } }] },
              },
              {
                name: 'Unknown asset',
                openApiResponse: '404',
                overwrites: [{ overwriteRequestPathVariables: [{ key: 'id', value: '000-999', overwrite: true }] }],
                tests: { contractTests: [{ statusCode: { enabled: true } }, { contentType: { enabled: true } }, { jsonBody: { enabled: true } }, { schemaValidation: { enabled: true } }] },
              },
            ],
          },
        ],
      },
      overwrites: [
        // A real integration key (the spec's example key is unknown: the Unauthorized variation keeps it).
        { openApiOperationId: 'getHomeboxLabel', overwriteRequestPathVariables: [{ key: 'key', value: integrationKey, overwrite: true }] },
        { openApiOperationId: 'printGrocyLabel', overwriteRequestPathVariables: [{ key: 'key', value: integrationKey, overwrite: true }] },
        { openApiOperationId: 'getPrintJob', overwriteRequestPathVariables: [{ key: 'jobId', value: jobId, overwrite: true }] },
        { openApiOperationId: 'getPrintBatch', overwriteRequestPathVariables: [{ key: 'batchId', value: batchId, overwrite: true }] },
        { openApiOperationId: 'retryPrintJob', overwriteRequestPathVariables: [{ key: 'jobId', value: failedJobId, overwrite: true }] },
        { openApiOperationId: 'cancelPrintJob', overwriteRequestPathVariables: [{ key: 'jobId', value: waitingJobId, overwrite: true }] },
        { openApiOperationId: 'movePrintJob', overwriteRequestPathVariables: [{ key: 'jobId', value: movableJobId, overwrite: true }] },
        ...AGENT_OPS.map((openApiOperationId) => ({ openApiOperationId, overwriteRequestSecurity: { bearer: { token: agentToken } } })),
        { openApiOperationId: 'reportAgentPrinterStatus', overwriteRequestPathVariables: [{ key: 'name', value: 'shed-ql', overwrite: true }] },
        {
          openApiOperationId: 'reportAgentJob',
          overwriteRequestPathVariables: [{ key: 'jobId', value: held.id, overwrite: true }],
          overwriteRequestBody: [{ key: 'lease', value: held.lease, overwrite: true }],
        },
        // Conditional writes: create a new template; delete one at the ETag just read.
        {
          openApiOperationId: 'putLabelTemplate',
          overwriteRequestPathVariables: [{ key: 'name', value: 'portman-new', overwrite: true }],
          overwriteRequestHeaders: [{ key: 'If-None-Match', value: '*', overwrite: true }],
        },
        // Records: read a demo item; create a new one; delete one at the ETag just read.
        { openApiOperationId: 'getRecord', overwriteRequestPathVariables: [{ key: 'id', value: DEMO_ITEMS.drill, overwrite: true }] },
        {
          openApiOperationId: 'putRecord',
          overwriteRequestPathVariables: [{ key: 'id', value: 'portman-new', overwrite: true }],
          overwriteRequestHeaders: [{ key: 'If-None-Match', value: '*', overwrite: true }],
        },
        {
          openApiOperationId: 'deleteRecord',
          overwriteRequestPathVariables: [{ key: 'id', value: 'portman-delete', overwrite: true }],
          overwriteRequestHeaders: [{ key: 'If-Match', value: doomedRecordEtag, overwrite: true }],
        },
        { openApiOperationId: 'deletePrinter', overwriteRequestPathVariables: [{ key: 'name', value: 'portman-delete', overwrite: true }] },
        ...['getWebhook', 'updateWebhook', 'listWebhookDeliveries'].map((openApiOperationId) => ({ openApiOperationId, overwriteRequestPathVariables: [{ key: 'webhookId', value: keptHook, overwrite: true }] })),
        { openApiOperationId: 'deleteWebhook', overwriteRequestPathVariables: [{ key: 'webhookId', value: doomedHook, overwrite: true }] },
        {
          openApiOperationId: 'redeliverWebhookEvent',
          overwriteRequestPathVariables: [{ key: 'webhookId', value: keptHook, overwrite: true }],
          overwriteRequestBody: [{ key: 'eventId', value: eventId, overwrite: true }],
        },
        { openApiOperationId: 'getPrintRule', overwriteRequestPathVariables: [{ key: 'ruleId', value: ruleIds[0]!, overwrite: true }] },
        { openApiOperationId: 'deletePrintRule', overwriteRequestPathVariables: [{ key: 'ruleId', value: ruleIds[1]!, overwrite: true }] },
        {
          openApiOperationId: 'deleteLabelTemplate',
          overwriteRequestPathVariables: [{ key: 'name', value: 'portman-delete', overwrite: true }],
          overwriteRequestHeaders: [{ key: 'If-Match', value: doomedEtag, overwrite: true }],
        },
      ],
      globals: { collectionVariables: { bearerToken: token, baseUrl: server.url } },
    };
    writeFileSync(join(dir, 'portman-config.json'), JSON.stringify(portmanConfig, null, 2));
    // Optional parameters stay out of the generated requests: each request is the plain, valid one.
    writeFileSync(join(dir, 'postman-config.json'), JSON.stringify({ enableOptionalParameters: false, requestParametersResolution: 'Example', exampleParametersResolution: 'Example' }));
    // Postman's schema checker knows JSON Schema's formats, not OpenAPI's `byte` (base64), and
    // fails a response that carries one (exportLabelTemplate's logo). Its copy of the spec goes
    // without that keyword; the server's own contract suite (test/contract) checks base64.
    const spec = readFileSync(join(ROOT, 'spec/openapi.yaml'), 'utf8').replace(/^\s*format: byte\n/gm, '');
    writeFileSync(join(dir, 'openapi.yaml'), spec);
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules/.bin/portman'),
      ['-l', join(dir, 'openapi.yaml'), '-b', server.url, '-c', 'portman-config.json', '-s', 'postman-config.json', '-o', 'collection.json', '--runNewman', '--newmanRunOptions', JSON.stringify({ reporters: ['cli'] })],
      { cwd: dir, timeout: 300_000, maxBuffer: 20 * 1024 * 1024 },
    ).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
      console.log(err.stdout ?? '', err.stderr ?? '');
      throw new Error(`portman/newman failed with exit code ${err.code}`);
    });
    console.log(stdout);
    const requests = (JSON.stringify(JSON.parse(readFileSync(join(dir, 'collection.json'), 'utf8'))).match(/"request":/g) ?? []).length;
    console.log(`portman: ${requests} requests generated from the spec, run by newman against ${server.url}: all assertions passed`);
    exitCode = 0;
  } finally {
    await server.close(1000);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

/**
 * A job of the demo token left as `finish` leaves it (failed for retryPrintJob, waiting
 * for cancelPrintJob), made through the store (the spool folder never fails). Stored
 * this way the job does not wake the server's worker, so this claims it first. Jobs
 * this script printed earlier may still be waiting (the queue hands out the oldest
 * first): each is handed back, due after this one. If the worker was quicker and
 * printed it, it tries a new one.
 */
async function heldJob(
  store: Awaited<ReturnType<typeof openStore>>,
  token: string,
  printer: string,
  finish: (id: string, owner: string) => Promise<boolean>,
): Promise<string> {
  const owner = 'check-portman';
  for (let tries = 0; tries < 5; tries++) {
    const id = randomUUID();
    await store.printJobs.submit(
      { id, printer, template: 'brother-ql-62x29', title: 'asset label: 000-001', fields: { kind: 'asset', id: '000-001' }, tokenId: token.slice(3, 11), idempotencyKey: null, maxAttempts: 1, png: Buffer.from('not delivered') },
      '2000-01-01T00:00:00.000Z',
    );
    for (let claims = 0; claims < 20; claims++) {
      const claimed = await store.printJobs.claim(owner, 60_000);
      if (!claimed) break; // the worker has it
      if (claimed.id === id) {
        if (await finish(id, owner)) return id;
        break;
      }
      await store.printJobs.markRetry(claimed.id, owner, 'handed back', new Date().toISOString());
    }
  }
  throw new Error('could not make a print job to hold');
}
