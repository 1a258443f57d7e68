/**
 * The studio's one way to the service: the typed client generated from the spec
 * (src/client.ts over openapi-fetch), on the page's own origin. Nothing here
 * writes a URL or a response type by hand.
 */
import { createLabelmakerClient, dataOrThrow, LabelmakerError, throwIfProblem, type InventoryRecord, type PrintJob, type PrintJobFilters as JobFilters, type PrintJobPage, type Stock } from '../../src/client.js';
import type { components } from '../../generated/openapi.js';
import type { ScanCheckResult, WireDesign as ElementWireDesign } from './element-wire.js';

export type { InventoryRecord, PrintJob, PrintJobPage, Stock };
export type Session = components['schemas']['Session'];
export type SavedTemplate = components['schemas']['LabelTemplateList']['templates'][number];
export type Studio = ReturnType<typeof connect>;
export type Selection = components['schemas']['Selection'];
export type SheetProduct = components['schemas']['SheetProduct'];
export type PrintBatch = components['schemas']['PrintBatch'];
export type SheetRequest = components['schemas']['SheetRequest'];
export type PrintBatchRequest = components['schemas']['PrintBatchRequest'];
export type TemplateDesign = components['schemas']['LabelTemplateInput'];
export type SampleRecord = components['schemas']['SampleRecord'];
export type PrintJobFilters = JobFilters & { cursor?: string };
export type LabelTemplate = components['schemas']['LabelTemplate'];
export type RecordRef = components['schemas']['SelectedRecord'];
export type SheetCalibration = components['schemas']['SheetCalibration'];
export type Printer = components['schemas']['Printer'];
/** listPrinters with a label named: the rule's choice and, per printer, whether it can print the label now. */
export type PrinterAdvice = components['schemas']['PrinterList'];
/** A label of a record as listPrinters names it (an asset by its asset id). */
export type LabelRef = components['schemas']['SelectedRecord'];

/** The label operation of each label kind (a record's label URLs are these). */
const LABEL_PATHS = { location: '/v1/labelmaker/location/{id}', asset: '/v1/labelmaker/assets/{id}', item: '/v1/labelmaker/item/{id}' } as const;

const JSON_OR_PROBLEM = { Accept: 'application/json, application/problem+json' };

export interface ConnectionWatch {
  /** Every 401: a token revoked or expired while the tab is open. */
  onUnauthorized?: () => void;
  /** Whether the service answered the last request at all (any status), or could not be reached. */
  onReach?: (reachable: boolean) => void;
}

export function connect(token: string, { onUnauthorized = () => {}, onReach = () => {} }: ConnectionWatch = {}) {
  const watched: typeof fetch = async (input, init) => {
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (err) {
      onReach(false);
      throw err;
    }
    onReach(true);
    if (res.status === 401) onUnauthorized();
    return res;
  };
  const client = createLabelmakerClient({ baseUrl: window.location.origin, token, fetch: watched });
  const raw = client.raw;
  return {
    ...client,
    async session(): Promise<Session> {
      return dataOrThrow(await raw.GET('/v1/labelmaker/session', { headers: JSON_OR_PROBLEM }));
    },
    async savedTemplates(): Promise<SavedTemplate[]> {
      return dataOrThrow(await raw.GET('/v1/labelmaker/templates', { headers: JSON_OR_PROBLEM })).templates;
    },
    /** getLabelTemplate: the template and its ETag, which a later save or delete sends back in If-Match. */
    async template(name: string): Promise<{ template: LabelTemplate; etag: string }> {
      const result = await raw.GET('/v1/labelmaker/templates/{name}', { params: { path: { name } }, headers: JSON_OR_PROBLEM });
      return { template: dataOrThrow(result), etag: result.response.headers.get('ETag') ?? '' };
    },
    /**
     * putLabelTemplate: replaces the version the editor loaded (If-Match: its ETag), or
     * creates a new one (If-None-Match: *), so nobody overwrites someone else's change
     * unseen: a stale ETag is the service's 412. Returns the new ETag.
     */
    async saveTemplate(name: string, design: TemplateDesign, etag: string | null): Promise<string> {
      const header = etag ? { 'If-Match': etag } : { 'If-None-Match': '*' as const };
      const response = throwIfProblem(await raw.PUT('/v1/labelmaker/templates/{name}', { params: { path: { name }, header }, body: design, headers: JSON_OR_PROBLEM }));
      return response.headers.get('ETag') ?? '';
    },
    /** deleteLabelTemplate, at the ETag the editor loaded. */
    async deleteTemplate(name: string, etag: string): Promise<void> {
      throwIfProblem(await raw.DELETE('/v1/labelmaker/templates/{name}', { params: { path: { name }, header: { 'If-Match': etag } }, headers: JSON_OR_PROBLEM }));
    },
    /** previewLabelTemplate: a record's label drawn with a design that is not saved. */
    async previewTemplate(design: TemplateDesign, record: RecordRef): Promise<{ png: Uint8Array; warnings: string | null }> {
      const result = await raw.POST('/v1/labelmaker/template-previews', {
        body: { design, record },
        headers: { Accept: 'image/png, application/problem+json' },
        parseAs: 'arrayBuffer',
      });
      return { png: new Uint8Array(dataOrThrow(result)), warnings: result.response.headers.get('Label-Warnings') };
    },
    /**
     * previewLabelTemplate with an element design: the label drawn with the design as it is,
     * on the record shown; `signal` aborts it when a newer edit comes.
     */
    /** previewLabelTemplate with an element design, on a stored record or a sample that is not stored. */
    async previewElements(design: ElementWireDesign, on: { record: RecordRef } | { sample: SampleRecord }, signal: AbortSignal): Promise<{ png: Uint8Array; warnings: string | null }> {
      const result = await raw.POST('/v1/labelmaker/template-previews', {
        body: { design: design as unknown as TemplateDesign, ...on },
        headers: { Accept: 'image/png, application/problem+json' },
        parseAs: 'arrayBuffer',
        signal,
      });
      return { png: new Uint8Array(dataOrThrow(result)), warnings: result.response.headers.get('Label-Warnings') };
    },
    /** putLabelTemplate with an element design: its new ETag and the service's scan check of its codes. */
    async saveElements(name: string, design: ElementWireDesign, etag: string | null): Promise<{ etag: string; scanCheck: ScanCheckResult | undefined }> {
      const header = etag ? { 'If-Match': etag } : { 'If-None-Match': '*' as const };
      const result = await raw.PUT('/v1/labelmaker/templates/{name}', { params: { path: { name }, header }, body: design as unknown as TemplateDesign, headers: JSON_OR_PROBLEM });
      const saved = dataOrThrow(result);
      return { etag: result.response.headers.get('ETag') ?? '', scanCheck: saved.scanCheck };
    },
    /** exportLabelTemplate: the saved template as a file (a putLabelTemplate body) and the name the service gives it. */
    async exportTemplate(name: string): Promise<{ blob: Blob; name: string }> {
      const result = await raw.GET('/v1/labelmaker/templates/{name}/file', { params: { path: { name } }, headers: JSON_OR_PROBLEM, parseAs: 'blob' });
      const blob = dataOrThrow(result);
      const named = /filename="([^"]+)"/.exec(result.response.headers.get('Content-Disposition') ?? '')?.[1];
      return { blob, name: named ?? `${name}.labelmaker.json` };
    },
    /** listPrinters with the label named: which printer the service would choose, and which can print it now. */
    async printersFor(label: LabelRef & { template: string }): Promise<PrinterAdvice> {
      return dataOrThrow(await raw.GET('/v1/labelmaker/printers', { params: { query: label }, headers: JSON_OR_PROBLEM }));
    },
    /** Prints a record's label (print=true) on the printer named, or where the service chooses; answers the job's address. */
    async printLabel(label: LabelRef, template: string, printer: string | undefined): Promise<string> {
      const result = await raw.GET(LABEL_PATHS[label.kind], {
        params: { path: { id: label.id }, query: { print: true, template, ...(printer ? { printer } : {}) }, header: { 'Idempotency-Key': crypto.randomUUID() } },
        headers: { Accept: 'image/png, application/problem+json' },
        parseAs: 'arrayBuffer',
      });
      dataOrThrow(result);
      const job = result.response.headers.get('Print-Job');
      if (!job) throw new Error('The service did not say which print job it made.');
      return job;
    },
    /** createPrintBatch: every label of the selection printed, under one Idempotency-Key. */
    async printBatch(body: PrintBatchRequest): Promise<PrintBatch> {
      return dataOrThrow(await raw.POST('/v1/labelmaker/print-jobs', {
        params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
        body,
        headers: JSON_OR_PROBLEM,
      }));
    },
    async batch(batchId: string): Promise<PrintBatch> {
      return dataOrThrow(await raw.GET('/v1/labelmaker/print-jobs/batches/{batchId}', { params: { path: { batchId } }, headers: JSON_OR_PROBLEM }));
    },
    /** createSheet: the selection's labels (or the calibration page) as a PDF, with the offset it was printed with (Sheet-Offset). */
    async sheet(body: SheetRequest): Promise<{ pdf: Blob; offset: string | null }> {
      const result = await raw.POST('/v1/labelmaker/sheets', {
        body,
        headers: { Accept: 'application/pdf, application/problem+json' },
        parseAs: 'blob',
      });
      return { pdf: dataOrThrow(result), offset: result.response.headers.get('Sheet-Offset') };
    },
    /** getSheetCalibration: the product's saved offset, or null when none is saved (404). */
    async calibration(sheet: SheetProduct): Promise<SheetCalibration | null> {
      const result = await raw.GET('/v1/labelmaker/sheet-calibrations/{sheet}', { params: { path: { sheet } }, headers: JSON_OR_PROBLEM });
      if (result.response.status === 404) return null;
      return dataOrThrow(result);
    },
    /** putSheetCalibration: saves the product's offset (the deployment's one, for every user). */
    async saveCalibration(sheet: SheetProduct, offsetXMm: number, offsetYMm: number): Promise<SheetCalibration> {
      return dataOrThrow(await raw.PUT('/v1/labelmaker/sheet-calibrations/{sheet}', { params: { path: { sheet } }, body: { offsetXMm, offsetYMm }, headers: JSON_OR_PROBLEM }));
    },
    /** deleteSheetCalibration: the product's sheets print without an offset again; none saved is not an error here. */
    async clearCalibration(sheet: SheetProduct): Promise<void> {
      const result = await raw.DELETE('/v1/labelmaker/sheet-calibrations/{sheet}', { params: { path: { sheet } }, headers: JSON_OR_PROBLEM });
      if (result.response.status !== 404) throwIfProblem(result);
    },
  };
}

/** The job id at the end of a Print-Job header (`/v1/labelmaker/print-jobs/<id>`). */
export function jobIdOf(printJob: string): string {
  return decodeURIComponent(printJob.slice(printJob.lastIndexOf('/') + 1));
}

/** A sentence for a person: the problem's detail, else its title, else the error. */
export function messageOf(err: unknown): string {
  if (err instanceof LabelmakerError) return err.problem.detail ?? err.problem.title;
  if (err instanceof TypeError) return 'The service cannot be reached.';
  return err instanceof Error ? err.message : String(err);
}

/** No answer at all (fetch's TypeError): the service is down or the network is gone. */
export const unreachable = (err: unknown): boolean => err instanceof TypeError;

/**
 * A panel's sentence for a failure: the service's reason, or, when the service could not
 * be reached (said once, at the top of the page), only what did not happen.
 */
export const failureText = (err: unknown, notDone: string): string => (unreachable(err) ? notDone : messageOf(err));

export function statusOf(err: unknown): number | undefined {
  return err instanceof LabelmakerError ? err.problem.status : undefined;
}

/** A 429's or 503's Retry-After, in seconds, when the service said. */
export function retryAfterOf(err: unknown): number | undefined {
  return err instanceof LabelmakerError ? err.retryAfter : undefined;
}
