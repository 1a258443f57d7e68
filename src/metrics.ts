/**
 * The service's Prometheus metrics (prom-client), one registry per process: what
 * operators scrape from METRICS_LISTEN (see src/api/metrics-endpoint.ts). Code that
 * has something to count calls the small functions below; none of them can throw
 * or block.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { VERSION } from './version.js';

export const registry = new Registry();
// prom-client's conventional names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...),
// unprefixed: the names standard Node.js dashboards and alerts query. The service's own
// metrics carry the labelmaker_ prefix.
collectDefaultMetrics({ register: registry });

/** Always 1; its labels say which release this instance runs (join on it in dashboards). */
new Gauge({
  name: 'labelmaker_build_info',
  help: 'The running release: version, and the Node.js version it runs on; always 1.',
  labelNames: ['version', 'nodejs'] as const,
  registers: [registry],
}).set({ version: VERSION, nodejs: process.versions.node }, 1);

/** Requests refused before an operation was matched (rate limit, draining, malformed URL, unknown path). */
export const NO_OPERATION = 'none';

const httpRequests = new Counter({
  name: 'labelmaker_http_requests_total',
  help: 'HTTP requests answered, by operationId and status code.',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: 'labelmaker_http_request_duration_seconds',
  help: 'Time from receiving a request to finishing its response, by operationId.',
  labelNames: ['operation'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const renderDuration = new Histogram({
  name: 'labelmaker_render_duration_seconds',
  help: 'Time to render one label, by stock.',
  labelNames: ['stock'] as const,
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
  registers: [registry],
});

const renderCache = new Counter({
  name: 'labelmaker_render_cache_requests_total',
  help: 'Lookups in the rendered-label cache, by result (hit rate: hit / (hit + miss)).',
  labelNames: ['result'] as const,
  registers: [registry],
});

const printJobsFinished = new Counter({
  name: 'labelmaker_print_job_attempts_total',
  help: "Print attempts by this instance's worker, by driver and outcome (printed, retry, failed).",
  labelNames: ['driver', 'outcome'] as const,
  registers: [registry],
});

const printerErrors = new Counter({
  name: 'labelmaker_printer_errors_total',
  help: 'Print attempts the printer (or the way to it) refused or failed, by driver.',
  labelNames: ['driver'] as const,
  registers: [registry],
});

const storeErrors = new Counter({
  name: 'labelmaker_store_errors_total',
  help: 'Database errors, by where they surfaced: request (a request got a 503), write (a write was refused), print-queue (the print worker could not use the queue).',
  labelNames: ['source'] as const,
  registers: [registry],
});

let queueDepth: (() => Promise<{ queued: number; printing: number }>) | undefined;
new Gauge({
  name: 'labelmaker_print_queue_jobs',
  help: 'Print jobs waiting (queued) or being delivered (printing), by state; shared by every instance on the same database.',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!queueDepth) return;
    try {
      const counts = await queueDepth();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    } catch {
      storeErrors.inc({ source: 'print-queue' });
    }
  },
});

const printerOutcomes = new Counter({
  name: 'labelmaker_printer_job_attempts_total',
  help: "Print attempts by this instance's dispatcher, by printer (its name) and outcome (printed, retry, failed).",
  labelNames: ['printer', 'outcome'] as const,
  registers: [registry],
});

/** Pending jobs by printer and state (the store's pendingByPrinter), shared by every instance on the database. */
type PrinterQueue = { printer: string; state: 'queued' | 'printing'; jobs: number; held: number; oldestCreatedAt: string }[];
let printerQueue: (() => Promise<PrinterQueue>) | undefined;
async function readPrinterQueue(): Promise<PrinterQueue | undefined> {
  if (!printerQueue) return undefined;
  try {
    return await printerQueue();
  } catch {
    storeErrors.inc({ source: 'print-queue' });
    return undefined;
  }
}

new Gauge({
  name: 'labelmaker_printer_queue_jobs',
  help: 'Print jobs pending per printer, by state: queued (waiting to be sent), held (waiting for the printer: wrong roll, offline, paused), printing (being sent).',
  labelNames: ['printer', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const row of (await readPrinterQueue()) ?? []) {
      if (row.state === 'printing') this.inc({ printer: row.printer, state: 'printing' }, row.jobs);
      else {
        this.inc({ printer: row.printer, state: 'queued' }, row.jobs - row.held);
        this.inc({ printer: row.printer, state: 'held' }, row.held);
      }
    }
  },
});

new Gauge({
  name: 'labelmaker_printer_oldest_job_age_seconds',
  help: 'Age of the oldest pending (queued, held or printing) print job per printer; absent when none waits.',
  labelNames: ['printer'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const oldest = new Map<string, number>();
    for (const row of (await readPrinterQueue()) ?? []) {
      const at = Date.parse(row.oldestCreatedAt);
      if (!Number.isNaN(at)) oldest.set(row.printer, Math.min(oldest.get(row.printer) ?? at, at));
    }
    for (const [printer, at] of oldest) this.set({ printer }, Math.max(0, (Date.now() - at) / 1000));
  },
});

/** A printer's last reading as the store holds it (every instance's poller writes there). */
export interface PrinterReading {
  name: string;
  status: { state?: unknown; checkedAt?: unknown } | null;
}

const PRINTER_STATES = ['ready', 'printing', 'attention', 'offline', 'unknown'] as const;
let printerReadings: (() => Promise<PrinterReading[]>) | undefined;
/** Read once per scrape for both printer gauges (collect runs per metric: the second reuses the first's list). */
let readingsOfScrape: { at: number; list: Promise<PrinterReading[]> } | undefined;
function readingsNow(): Promise<PrinterReading[]> {
  if (!printerReadings) return Promise.resolve([]);
  if (!readingsOfScrape || Date.now() - readingsOfScrape.at > 1_000) readingsOfScrape = { at: Date.now(), list: printerReadings() };
  return readingsOfScrape.list;
}

new Gauge({
  name: 'labelmaker_printer_state',
  help: "Each printer's state from its last status reading: 1 for its state, 0 for the others (unknown until it was read). Printers being out of labels or offline does not make the service unready.",
  labelNames: ['printer', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    try {
      for (const p of await readingsNow()) {
        const state = typeof p.status?.state === 'string' ? p.status.state : 'unknown';
        for (const s of PRINTER_STATES) this.set({ printer: p.name, state: s }, s === state ? 1 : 0);
      }
    } catch {
      // The store cannot be read: no printer series this scrape (labelmaker_store_errors_total counts the store's faults).
    }
  },
});

new Gauge({
  name: 'labelmaker_printer_status_age_seconds',
  help: "Seconds since each printer's status was last read (by any instance); absent for a printer never read. Grows past PRINTER_STATUS_INTERVAL_S when no instance polls it.",
  labelNames: ['printer'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    try {
      for (const p of await readingsNow()) {
        const at = typeof p.status?.checkedAt === 'string' ? Date.parse(p.status.checkedAt) : NaN;
        if (Number.isFinite(at)) this.set({ printer: p.name }, Math.max(0, (Date.now() - at) / 1000));
      }
    } catch {
      // As labelmaker_printer_state: no series this scrape.
    }
  },
});

export function observeRequest(operation: string | undefined, status: number, seconds: number): void {
  const op = operation ?? NO_OPERATION;
  httpRequests.inc({ operation: op, status: String(status) });
  httpDuration.observe({ operation: op }, seconds);
}

export function observeRender(stock: string, seconds: number): void {
  renderDuration.observe({ stock }, seconds);
}

/** Called by the render cache on every lookup. */
export function countRenderCacheLookup(hit: boolean): void {
  renderCache.inc({ result: hit ? 'hit' : 'miss' });
}

export function countPrintAttempt(driver: string, outcome: 'printed' | 'retry' | 'failed'): void {
  printJobsFinished.inc({ driver, outcome });
}

/** One delivery attempt's outcome on a printer of the fleet (by its name: never its address). */
export function countPrinterOutcome(printer: string, outcome: 'printed' | 'retry' | 'failed'): void {
  printerOutcomes.inc({ printer, outcome });
}

export function countPrinterError(driver: string): void {
  printerErrors.inc({ driver });
}

export function countStoreError(source: 'request' | 'write' | 'print-queue'): void {
  storeErrors.inc({ source });
}

/** Where the printer gauges read the fleet's last readings from (the server's store). */
export function setPrinterReadingSource(source: typeof printerReadings): void {
  printerReadings = source;
  readingsOfScrape = undefined;
}

/** Where the queue-depth gauge reads from (the server's store, when printing is configured). */
export function setQueueDepthSource(source: typeof queueDepth): void {
  queueDepth = source;
}

/** Where the per-printer gauges read from (the store's pendingByPrinter). */
export function setPrinterQueueSource(source: typeof printerQueue): void {
  printerQueue = source;
}
