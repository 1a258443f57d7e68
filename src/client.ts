/**
 * A typed client for consumers, built with openapi-fetch on the generated types:
 * paths, parameters and bodies are checked by the compiler against the spec.
 *
 *   const labels = createLabelmakerClient({ baseUrl: 'https://labels.example.com', token });
 *   const { png, etag } = await labels.label('assets', '000-001', { template: 'zebra-2x1-203dpi' });
 *   for await (const record of labels.allRecords({ parent: 'shelf-3', descendants: true })) { ... }
 */
import createClient from 'openapi-fetch';
import type { components, operations, paths } from '../generated/openapi.js';

export type Problem = components['schemas']['Problem'];
export type InventoryRecord = components['schemas']['InventoryRecord'];
export type RecordPage = components['schemas']['RecordPage'];
/** listRecords filters: q, kind, parent, descendants, topLevel, assetId, assetIdFrom, assetIdTo, field with fieldValue or fieldFrom/fieldTo, labels (stale, neverPrinted), limit. */
export type RecordFilters = Omit<NonNullable<operations['listRecords']['parameters']['query']>, 'cursor'>;
export type PrintJob = components['schemas']['PrintJob'];
/** A record as stored (getRecord, putRecord), and what putRecord sends. */
export type StoredRecord = components['schemas']['StoredRecord'];
export type RecordInput = components['schemas']['RecordInput'];
export type BulkResult = components['schemas']['BulkResult'];
export type RecordKindPath = 'locations' | 'items';
export type PrintJobPage = components['schemas']['PrintJobPage'];
/** listPrintJobs filters: state, batch, limit. */
export type PrintJobFilters = Omit<NonNullable<operations['listPrintJobs']['parameters']['query']>, 'cursor'>;
export type Template = components['schemas']['Template'];
/** A printer of the deployment (listPrinters, getPrinter); `deviceUri` only for a token with printers:admin. */
export type Printer = components['schemas']['Printer'];
/** What putPrinter takes. */
export type PrinterInput = components['schemas']['PrinterInput'];
/** A registered webhook (listWebhooks, getWebhook); its secret only in createWebhook's answer. */
export type Webhook = components['schemas']['Webhook'];
export type WebhookCreated = components['schemas']['WebhookCreated'];
export type WebhookInput = components['schemas']['WebhookInput'];
export type WebhookChange = components['schemas']['WebhookChange'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
/** A print rule (listPrintRules, getPrintRule, createPrintRule). */
export type PrintRule = components['schemas']['PrintRule'];
/** What createPrintRule takes. */
export type PrintRuleInput = components['schemas']['PrintRuleInput'];
/** A label stock (listStocks): its size, dpi, printable area, part numbers, kind and colours. */
export type Stock = components['schemas']['Stock'];
/** A custom field of the deployment's catalogue (listFields): name, title, type and bounds. */
export type FieldDefinition = components['schemas']['FieldDefinition'];
/** The label's path segment: `assets` is the spec's LabelKind `asset` (the service's table: src/records/kinds.ts). */
export type LabelKind = 'location' | 'assets' | 'item';

export interface LabelOptions {
  print?: boolean;
  template?: Template;
  /** With print: the same key never prints twice (per token, 24 hours). */
  idempotencyKey?: string;
}

export interface FetchedLabel {
  png: Uint8Array;
  etag: string | null;
  /** Address of the print job, with print: true. */
  printJob: string | null;
  /** What the label could not show as asked (the Label-Warnings header), or null. */
  warnings: string | null;
}

/** An RFC 9457 problem returned by the service. */
export class LabelmakerError extends Error {
  /** Seconds to wait before asking again (the answer's `Retry-After`, on a 429 or 503), when it said. */
  readonly retryAfter: number | undefined;
  constructor(
    readonly problem: Problem,
    response?: Response,
  ) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
    // The service sends delta-seconds (an HTTP date is not used).
    const seconds = Number(response?.headers.get('Retry-After') ?? NaN);
    this.retryAfter = Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  }
}

const LABEL_PATHS = {
  location: '/v1/labelmaker/location/{id}',
  assets: '/v1/labelmaker/assets/{id}',
  item: '/v1/labelmaker/item/{id}',
} as const;

export function createLabelmakerClient(opts: { baseUrl: string; token: string; fetch?: typeof fetch }) {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl,
    headers: { Authorization: `Bearer ${opts.token}` },
    fetch: opts.fetch,
  });

  return {
    /** The underlying openapi-fetch client, for anything not wrapped here. */
    raw: client,

    async label(kind: LabelKind, id: string, { print, template, idempotencyKey }: LabelOptions = {}): Promise<FetchedLabel> {
      const result = await client.GET(LABEL_PATHS[kind], {
        params: {
          path: { id },
          query: { print, template },
          header: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
        },
        headers: { Accept: 'image/png, application/problem+json' },
        parseAs: 'arrayBuffer',
      });
      const data = dataOrThrow(result);
      const { headers } = result.response;
      return { png: new Uint8Array(data), etag: headers.get('ETag'), printJob: headers.get('Print-Job'), warnings: headers.get('Label-Warnings') };
    },

    /** One page of records (listRecords); pass its nextCursor as `cursor` for the next. */
    async records(filters: RecordFilters & { cursor?: string } = {}): Promise<RecordPage> {
      return dataOrThrow(await client.GET('/v1/labelmaker/records', {
        params: { query: filters },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** Every record matching the filters, following the cursors page by page. */
    async *allRecords(filters: RecordFilters = {}): AsyncGenerator<InventoryRecord> {
      let cursor: string | undefined;
      do {
        const page = await this.records({ ...filters, cursor });
        yield* page.records;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },

    /** The label at one of a record's label URLs (`record.labels.item`, ...). */
    async labelAt(url: string, options: LabelOptions = {}): Promise<FetchedLabel> {
      const m = /\/v1\/labelmaker\/(location|assets|item)\/([^/?#]+)$/.exec(url);
      if (!m) throw new TypeError(`not a label URL: ${url}`);
      return this.label(m[1] as LabelKind, decodeURIComponent(m[2]!), options);
    },

    /**
     * Every label stock the service draws for (listStocks), in the service's order. The
     * list changes only with a release: a browser keeps it an hour (Cache-Control), then revalidates.
     */
    async stocks(): Promise<Stock[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/stocks', {
        headers: { Accept: 'application/json, application/problem+json' },
      })).stocks;
    },

    /** The custom fields records may carry and templates may show (listFields), in the catalogue's order. */
    async fields(): Promise<FieldDefinition[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/fields', {
        headers: { Accept: 'application/json, application/problem+json' },
      })).fields;
    },

    async printJob(jobId: string): Promise<PrintJob> {
      return dataOrThrow(await client.GET('/v1/labelmaker/print-jobs/{jobId}', {
        params: { path: { jobId } },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** One page of the token's print jobs, newest first (listPrintJobs); pass nextCursor as `cursor` for the next. */
    async printJobs(filters: PrintJobFilters & { cursor?: string } = {}): Promise<PrintJobPage> {
      return dataOrThrow(await client.GET('/v1/labelmaker/print-jobs', {
        params: { query: filters },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** Puts a failed job back in the queue (retryPrintJob); a job that is not failed is a 409 LabelmakerError. */
    async retryPrintJob(jobId: string): Promise<PrintJob> {
      return dataOrThrow(await client.POST('/v1/labelmaker/print-jobs/{jobId}/retry', {
        params: { path: { jobId } },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** One record and its ETag (getRecord), for a conditional putRecord or deleteRecord. */
    async record(kind: RecordKindPath, id: string): Promise<{ record: StoredRecord; etag: string | null }> {
      const result = await client.GET('/v1/labelmaker/records/{kind}/{id}', { params: { path: { kind, id } }, headers: { Accept: 'application/json, application/problem+json' } });
      return { record: dataOrThrow(result), etag: result.response.headers.get('ETag') };
    },

    /**
     * Creates (`create: true`: only if it does not exist) or replaces (`ifMatch`: only at that
     * ETag) a record (putRecord; needs records:write). A broken rule is a 422 LabelmakerError
     * whose problem lists `errors` by row, as `labelmaker import` does.
     */
    async putRecord(kind: RecordKindPath, id: string, record: RecordInput, condition: { ifMatch: string } | { create: true }): Promise<{ record: StoredRecord; etag: string | null }> {
      const header = 'ifMatch' in condition ? { 'If-Match': condition.ifMatch } : { 'If-None-Match': '*' as const };
      const result = await client.PUT('/v1/labelmaker/records/{kind}/{id}', {
        params: { path: { kind, id }, header },
        body: record,
        headers: { Accept: 'application/json, application/problem+json' },
      });
      return { record: dataOrThrow(result), etag: result.response.headers.get('ETag') };
    },

    /** Deletes a record at its ETag (`*`: whatever it is); a location that holds records is a 409 LabelmakerError. */
    async deleteRecord(kind: RecordKindPath, id: string, ifMatch: string): Promise<void> {
      throwIfProblem(await client.DELETE('/v1/labelmaker/records/{kind}/{id}', { params: { path: { kind, id }, header: { 'If-Match': ifMatch } }, headers: { Accept: 'application/problem+json' } }));
    },

    /**
     * Creates or replaces many records in one transaction (upsertRecords; needs records:write):
     * an array (sent as JSON), or JSON lines as text or a stream of bytes (sent as application/x-ndjson,
     * never held whole). With `idempotencyKey`, a repeat answers the same and writes nothing.
     */
    async upsertRecords(records: object[] | string | ReadableStream<Uint8Array>, { idempotencyKey }: { idempotencyKey?: string } = {}): Promise<BulkResult> {
      const lines = !Array.isArray(records);
      const res = await (opts.fetch ?? fetch)(`${opts.baseUrl.replace(/\/$/, '')}/v1/labelmaker/records/bulk`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${opts.token}`,
          'Content-Type': lines ? 'application/x-ndjson' : 'application/json',
          Accept: 'application/json, application/problem+json',
          ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
        },
        body: lines ? records : JSON.stringify(records),
        ...(records instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
      const body: unknown = await res.json();
      if (!res.ok) throw new LabelmakerError(asProblem(body, res), res);
      return body as BulkResult;
    },

    /** Every printer, by name (listPrinters; needs labels:print). */
    async printers(): Promise<Printer[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/printers', { headers: { Accept: 'application/json, application/problem+json' } })).printers;
    },

    /** One printer and its ETag (getPrinter), for a conditional putPrinter or deletePrinter. */
    async printer(name: string): Promise<{ printer: Printer; etag: string | null }> {
      const result = await client.GET('/v1/labelmaker/printers/{name}', { params: { path: { name } }, headers: { Accept: 'application/json, application/problem+json' } });
      return { printer: dataOrThrow(result), etag: result.response.headers.get('ETag') };
    },

    /**
     * Creates or replaces a printer (putPrinter; needs printers:admin): with `ifMatch` only the
     * printer as read (at that ETag), with `create: true` only a new one (412 otherwise).
     */
    async putPrinter(name: string, printer: PrinterInput, condition: { ifMatch: string } | { create: true } | Record<string, never> = {}): Promise<{ printer: Printer; etag: string | null }> {
      const header = 'ifMatch' in condition ? { 'If-Match': condition.ifMatch } : 'create' in condition ? { 'If-None-Match': '*' as const } : {};
      const result = await client.PUT('/v1/labelmaker/printers/{name}', {
        params: { path: { name }, header },
        body: printer,
        headers: { Accept: 'application/json, application/problem+json' },
      });
      return { printer: dataOrThrow(result), etag: result.response.headers.get('ETag') };
    },

    /**
     * Reads a printer's status now (refreshPrinterStatus; needs labels:print) and returns the
     * printer with it: `status.state` ready, printing, attention, offline or unknown.
     */
    async refreshPrinterStatus(name: string): Promise<Printer> {
      return dataOrThrow(await client.POST('/v1/labelmaker/printers/{name}/status', { params: { path: { name } }, headers: { Accept: 'application/json, application/problem+json' } }));
    },

    /** Deletes a printer (deletePrinter; needs printers:admin), at `ifMatch` when given. */
    async deletePrinter(name: string, ifMatch?: string): Promise<void> {
      throwIfProblem(await client.DELETE('/v1/labelmaker/printers/{name}', {
        params: { path: { name }, header: ifMatch ? { 'If-Match': ifMatch } : {} },
        headers: { Accept: 'application/problem+json' },
      }));
    },

    /** Registers a webhook (createWebhook; needs webhooks:admin): the answer holds its secret, shown this once. */
    async createWebhook(webhook: WebhookInput): Promise<WebhookCreated> {
      return dataOrThrow(await client.POST('/v1/labelmaker/webhooks', { body: webhook, headers: { Accept: 'application/json, application/problem+json' } }));
    },

    /** Every registered webhook (listWebhooks), without secrets. */
    async webhooks(): Promise<Webhook[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/webhooks', { headers: { Accept: 'application/json, application/problem+json' } })).webhooks;
    },

    /** One webhook and its ETag (getWebhook). */
    async webhook(webhookId: string): Promise<{ webhook: Webhook; etag: string | null }> {
      const result = await client.GET('/v1/labelmaker/webhooks/{webhookId}', { params: { path: { webhookId } }, headers: { Accept: 'application/json, application/problem+json' } });
      return { webhook: dataOrThrow(result), etag: result.response.headers.get('ETag') };
    },

    /** Changes the fields given (updateWebhook), at `ifMatch` when given. */
    async updateWebhook(webhookId: string, change: WebhookChange, ifMatch?: string): Promise<Webhook> {
      return dataOrThrow(await client.PATCH('/v1/labelmaker/webhooks/{webhookId}', {
        params: { path: { webhookId }, header: ifMatch ? { 'If-Match': ifMatch } : {} },
        body: change,
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** Deletes a webhook and its deliveries (deleteWebhook), at `ifMatch` when given. */
    async deleteWebhook(webhookId: string, ifMatch?: string): Promise<void> {
      throwIfProblem(await client.DELETE('/v1/labelmaker/webhooks/{webhookId}', {
        params: { path: { webhookId }, header: ifMatch ? { 'If-Match': ifMatch } : {} },
        headers: { Accept: 'application/problem+json' },
      }));
    },

    /** A webhook's recent deliveries, newest first (listWebhookDeliveries). */
    async webhookDeliveries(webhookId: string, limit?: number): Promise<WebhookDelivery[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/webhooks/{webhookId}/deliveries', {
        params: { path: { webhookId }, query: limit === undefined ? {} : { limit } },
        headers: { Accept: 'application/json, application/problem+json' },
      })).deliveries;
    },

    /** Delivers an event to a webhook again, due now (redeliverWebhookEvent). */
    async redeliverWebhookEvent(webhookId: string, eventId: number): Promise<WebhookDelivery> {
      return dataOrThrow(await client.POST('/v1/labelmaker/webhooks/{webhookId}/deliveries', {
        params: { path: { webhookId } },
        body: { eventId },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** Every print rule of the deployment (listPrintRules; needs labels:read). */
    async printRules(): Promise<PrintRule[]> {
      return dataOrThrow(await client.GET('/v1/labelmaker/print-rules', { headers: { Accept: 'application/json, application/problem+json' } })).rules;
    },

    /** One print rule (getPrintRule; needs labels:read). */
    async printRule(ruleId: string): Promise<PrintRule> {
      return dataOrThrow(await client.GET('/v1/labelmaker/print-rules/{ruleId}', { params: { path: { ruleId } }, headers: { Accept: 'application/json, application/problem+json' } }));
    },

    /** Creates a print rule (createPrintRule; needs printers:admin); an unknown location, template or printer is a 422 LabelmakerError. */
    async createPrintRule(rule: PrintRuleInput): Promise<PrintRule> {
      return dataOrThrow(await client.POST('/v1/labelmaker/print-rules', { body: rule, headers: { Accept: 'application/json, application/problem+json' } }));
    },

    /** Deletes a print rule (deletePrintRule; needs printers:admin). */
    async deletePrintRule(ruleId: string): Promise<void> {
      throwIfProblem(await client.DELETE('/v1/labelmaker/print-rules/{ruleId}', { params: { path: { ruleId } }, headers: { Accept: 'application/problem+json' } }));
    },

    /** Cancels a job still waiting in the queue (cancelPrintJob); a job no longer waiting is a 409 LabelmakerError. */
    async cancelPrintJob(jobId: string): Promise<PrintJob> {
      return dataOrThrow(await client.POST('/v1/labelmaker/print-jobs/{jobId}/cancel', {
        params: { path: { jobId } },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },

    /** Sends a waiting or held job to another printer (movePrintJob); a job no longer waiting is a 409 LabelmakerError. */
    async movePrintJob(jobId: string, printer: string): Promise<PrintJob> {
      return dataOrThrow(await client.POST('/v1/labelmaker/print-jobs/{jobId}/move', {
        params: { path: { jobId } },
        body: { printer },
        headers: { Accept: 'application/json, application/problem+json' },
      }));
    },
  };
}

/** What an openapi-fetch call answers (its `data` absent on an error). */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The call's problem thrown as a LabelmakerError; for operations whose success has no body. Returns the response (for its headers). */
export function throwIfProblem(result: FetchResult<unknown>): Response {
  if (result.error !== undefined) throw new LabelmakerError(asProblem(result.error, result.response), result.response);
  return result.response;
}

/** The call's data; its problem (or a missing body) is thrown as a LabelmakerError. */
export function dataOrThrow<T>(result: FetchResult<T>): NonNullable<T> {
  const { data, error, response } = result;
  if (error !== undefined || data === undefined || data === null) throw new LabelmakerError(asProblem(error, response), response);
  return data;
}

/** The problem body the service sent, or one made from the status line when the body was not one. */
function asProblem(error: unknown, response: Response): Problem {
  if (error && typeof error === 'object' && 'status' in error) return error as Problem;
  return { type: 'about:blank', title: response.statusText || 'Error', status: response.status };
}
