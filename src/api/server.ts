/**
 * Wires config, store and HTTP together and owns the listening socket. Used by
 * the entry point and by the contract tests (which start it on port 0).
 */
import { fieldHandlers } from './field-handlers.js';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { parse as parseYaml } from 'yaml';
import type { Config } from '../config.js';
import { applyConfiguredPrinters, configuredPrinters, DEFAULT_PRINTER, printerDrivers, startPrinting, type Printing } from '../printing/index.js';
import { storeFaultOf, storeUnavailable, type Store } from '../records/index.js';
import { createApp } from './app.js';
import { cachedTokens } from './token-cache.js';
import { MAX_HEADER_BYTES, answerClientErrors } from './client-errors.js';
import { listen } from './listen.js';
import { labelHandlers, printJobHandlers } from './handlers.js';
import type { LabelCache } from './label-cache.js';
import { labelService } from './label-service.js';
import type { Handlers } from './operations.js';
import { poolRenderer, type Renderer } from '../labels/index.js';
import { sheetHandlers } from './sheet-handlers.js';
import { calibrationHandlers } from './calibration-handlers.js';
import { printerHandlers, PRINTERS_PATH } from './printer-handlers.js';
import { agentHandlers } from './agent-handlers.js';
import { heavyWork } from './heavy-work.js';
import { printBatchHandlers } from './batch-handlers.js';
import { healthHandler, livenessHandler } from './health.js';
import { readinessHandler } from './readiness.js';
import { createRateLimiter } from './rate-limit.js';
import { withPrintQuota } from './print-quota.js';
import { startMetricsListener, type MetricsListener } from './metrics-endpoint.js';
import { setPrinterQueueSource, setPrinterReadingSource, setQueueDepthSource } from '../metrics.js';
import { recordWriteHandlers } from './record-write-handlers.js';
import { recordHandlers } from './record-handlers.js';
import { integrationHandlers } from './integration-handlers.js';
import { templateHandlers } from './template-handlers.js';
import { templatePreviewHandler } from './template-preview.js';
import { sessionHandlers } from './session-handlers.js';
import { stockHandlers } from './stock-handlers.js';
import { createApiRouter } from './router.js';
import { startWebhooks } from '../events/webhooks.js';
import { webhookHandlers } from './webhook-handlers.js';
import { printRulesConsumer } from '../events/print-rules.js';
import { labelStalenessConsumer } from '../events/label-staleness.js';
import { startEventRetention } from '../events/retention.js';
import { printRuleHandlers } from './print-rule-handlers.js';

export const SPEC_PATH = new URL('../../spec/openapi.yaml', import.meta.url);

export interface RunningServer {
  /** e.g. http://127.0.0.1:34567 */
  url: string;
  /** GET /metrics on its own listener (METRICS_LISTEN), when configured. */
  metricsUrl?: string;
  server: Server;
  /** Stops accepting requests, lets in-flight ones finish (up to graceMs), then closes the store. */
  close(graceMs?: number): Promise<void>;
  /** The rendered-label cache (its stats() are hits, renders, size). */
  labels: LabelCache;
  /** Its render threads (none with RENDER_THREADS=0): for tests and metrics. */
  renderer: Pick<Renderer, 'threads' | 'workers'>;
  /** Printing, when a printer is configured: its shared drivers and reevaluateHolds (the status poller's, and tests'). */
  printing?: Pick<Printing, 'drivers' | 'reevaluateHolds'>;
}

export interface ServerDeps {
  config: Config;
  store: Store;
  logger: Logger;
  /** The clock labels' `{today}` reads (tests inject one to see the next day); default the system's. */
  now?: () => Date;
}

export async function startServer({ config, store, logger, now }: ServerDeps): Promise<RunningServer> {
  const specYaml = readFileSync(SPEC_PATH, 'utf8');
  const definition = parseYaml(specYaml) as Document;
  const specJson = JSON.stringify(definition); // before openapi-backend sees (and may dereference) it
  const rateLimiter = await createRateLimiter(config.databaseUrl, config.rateLimitPerMinute, config.redisUrl, config.printQuotaPerMinute);
  // One driver per printer, shared by delivery, the status poller and refreshPrinterStatus (printer-drivers.ts).
  const drivers = printerDrivers({ commandArgv: config.printerCommand });
  // Always on: a fleet with no printer yet prints once one is added (PRINTERS_FILE, putPrinter), without a restart.
  const printing = startPrinting(config.printing, store, logger, drivers, config.printerStatusIntervalMs);
  let metrics: MetricsListener | undefined;
  const renderer = poolRenderer(config.renderThreads);
  // Fans the outbox out to the registered webhooks and sends their deliveries (docs/webhooks.md).
  const webhooks = startWebhooks(store, logger.child({ component: 'webhooks' }), config.webhooks);
  try {
    setQueueDepthSource(() => store.printJobs.pendingCounts());
    setPrinterQueueSource(() => store.printJobs.pendingByPrinter());
    setPrinterReadingSource(() => store.printers.list());
    if (config.metricsListen) metrics = await startMetricsListener(config.metricsListen.host, config.metricsListen.port);
    logger.info({ rateLimits: rateLimiter.kind }, `rate limits: ${rateLimiter.kind === 'memory' ? 'counted by this instance' : `shared through ${rateLimiter.kind}`}`);
    let draining = false;
    // Every print path stores its jobs through this queue: the print quota counts them all (print-quota.ts).
    const printQueue = withPrintQuota(printing.queue, rateLimiter.printQuota, logger);
    // Every label, preview, sheet, batch, image and integration gets its records, templates, drawing and printing here.
    // Inside the request time-out, which would answer 503 on its own and leave the drawing running.
    const renderTimeoutMs = Math.max(1_000, config.requestTimeoutMs - 2_000);
    const labels = labelService({
      store,
      renderer,
      printQueue,
      // With no printer stored, PRINTER_URI's (if any) still takes jobs (the configuration could not be written).
      fallbackPrinter: config.printing.printerUri === undefined ? undefined : DEFAULT_PRINTER,
      defaultTemplateName: config.defaultTemplateName,
      footer: config.labelFooter || undefined,
      publicBaseUrl: config.publicBaseUrl,
      cacheBytes: config.labelCacheBytes,
      renderTimeoutMs,
      now,
      timeZone: config.labelTimeZone,
    });
    const heavy = heavyWork(config.heavyRequestsPerToken);
    const handlers: Handlers = {
      ...labelHandlers(labels),
      ...printJobHandlers(printQueue),
      ...sheetHandlers({ labels, heavy }),
      ...printBatchHandlers({ labels, queue: printQueue, heavy }),
      ...integrationHandlers({ labels, publicBaseUrl: config.publicBaseUrl, heavy }),
      ...templatePreviewHandler({ labels, heavy, fields: config.fields.fields, publicBaseUrl: config.publicBaseUrl }),
      ...recordHandlers(store.search, config.fields.fields),
      ...recordWriteHandlers(store, config.fields.fields),
      ...templateHandlers(store.templates, renderer, config.fields.fields),
      ...fieldHandlers(config.fields),
      ...calibrationHandlers(store.calibrations),
      ...printRuleHandlers({ rules: store.printRules, records: store.records, templates: store.templates, printers: store.printers }),
      ...printerHandlers({ printers: store.printers, drivers, labels, records: store.records, commandArgv: config.printerCommand, reevaluateHolds: printing.reevaluateHolds }),
      ...agentHandlers({
        printers: store.printers,
        jobs: store.printJobs,
        reevaluateHolds: printing.reevaluateHolds,
        requestTimeoutMs: config.requestTimeoutMs,
      }),
      ...sessionHandlers({ printQuotaPerMinute: config.printQuotaPerMinute }),
      ...stockHandlers(),
      ...webhookHandlers({ webhooks: store.webhooks, wake: webhooks.wake }),
      getHealth: healthHandler(store, () => draining, logger),
      getLiveness: livenessHandler(),
      getReadiness: readinessHandler({
        store,
        printWorker: printing.workerHealth,
        renderer: renderer.threads > 0 ? renderer.health : undefined,
        draining: () => draining,
        logger,
      }),
    };
    const tokens = cachedTokens(store.tokens, config.tokenCacheMs);
    const router = await createApiRouter({ definition, tokens, handlers, logger });
    // The configuration's printers (PRINTERS_FILE, PRINTER_URI) before the first request: a file
    // that cannot be used stops the start (a ConfigError), checked by putPrinter's own schemas.
    const fleetLog = logger.child({ component: 'printers' });
    const configured = await configuredPrinters(
      { file: config.printersFile, printerUri: config.printing.printerUri === undefined ? undefined : { uri: config.printing.printerUri, title: config.printing.printerName ?? DEFAULT_PRINTER } },
      (name, body) => router.checkRequest('putPrinter', { path: `${PRINTERS_PATH}/${encodeURIComponent(name)}`, body })?.replace(/(^|; )body /g, '$1'),
      { records: store.records, commandArgv: config.printerCommand },
      fleetLog,
    );
    try {
      await applyConfiguredPrinters(store.printers, configured, fleetLog);
    } catch (err) {
      // A database that refuses writes (read-only, full, locked: labels still work) leaves the fleet as it was.
      if (!storeFaultOf(err) && !storeUnavailable(err)) throw err;
      fleetLog.error({ err }, "the configuration's printers could not be written (the database refuses writes): the fleet stays as it was until a start can write them");
    }
    // The first round may have listed the fleet before the configuration's printers were written.
    void printing.pollStatusNow();

    const app = createApp({ config, store, logger, specYaml, specJson, router, draining: () => draining, rateLimiter, tokens });
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_BYTES,
        // A client must send its whole request (headers included) within the documented time-out.
        requestTimeout: config.requestTimeoutMs,
        headersTimeout: config.requestTimeoutMs,
        // Node checks those time-outs on this interval (30 s by default): check often, so the cut comes on time.
        connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
      },
      app,
    );
    server.keepAliveTimeout = 5_000;
    // Connections past this are closed by Node as they arrive (its 'drop' event), before any byte is read.
    server.maxConnections = config.maxConnections;
    answerClientErrors(server, config.requestTimeoutMs);

    await listen(server, config.port, config.host, 'PORT');
    // Print rules (src/events/print-rules.ts): one instance at a time holds the consumer's lease.
    const printRules = printRulesConsumer({ store, labels, wakeWorker: () => printing.queue.wake(), log: logger.child({ component: 'print-rules' }) });
    printRules.start();
    // label.stale events (src/events/label-staleness.ts): one instance at a time, too.
    const labelStaleness = labelStalenessConsumer({ store, fingerprintNow: (printed) => labels.fingerprintNow(printed), wake: () => webhooks.wake(), log: logger.child({ component: 'label-staleness' }) });
    labelStaleness.start();
    // Events and finished deliveries past EVENTS_RETENTION_DAYS (src/events/retention.ts).
    const retention = startEventRetention({ events: store.events, retentionMs: config.eventsRetentionDays * 86_400_000, logger: logger.child({ component: 'event-retention' }) });
    const { address, port } = server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;

    let closing: Promise<void> | undefined;
    const close = (graceMs = 10_000) =>
      (closing ??= (async () => {
        draining = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        // HTTP drains while the print in progress finishes (or is cancelled and requeued).
        await Promise.all([closed, printRules.stop(), labelStaleness.stop(), retention.stop(), printing.stop(graceMs), metrics?.close(), webhooks.stop()]);
        await rateLimiter.close();
        clearTimeout(timer);
        await renderer.close();
        await store.close();
      })());

    return { url: `http://${host}:${port}`, metricsUrl: metrics?.url, server, close, labels: labels.cache, renderer, printing };
  } catch (err) {
    await printing.stop(0); // no worker outlives a server that failed to start
    await webhooks.stop();
    await metrics?.close();
    await rateLimiter.close();
    await renderer.close();
    throw err;
  }
}
