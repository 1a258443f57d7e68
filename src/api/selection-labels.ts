/**
 * The label service's many-label work (label-service.ts): a selection's labels laid
 * out on a sheet product as a PDF, a product's calibration page, and a selection
 * printed as one batch of jobs. Each resolves its template and selection as the
 * single-label operations do, draws on the render threads (render-pool.ts: seconds
 * of drawing for 1000 labels, never on the event loop) within the request's time,
 * and for a batch stores every job in one transaction (printing/queue.ts), so a
 * crash at any moment leaves either the whole batch or nothing.
 *
 * Knows nothing of HTTP; the handlers (sheet-handlers.ts, batch-handlers.ts) admit
 * the work per token (heavy-work.ts) and write the answers.
 */
import { createHash } from 'node:crypto';
import { SheetTimeoutError, type LabelRecord, type OffsetFrom, type RenderedBytes, type Renderer, type SheetPdf, type SheetProduct, type Template } from '../labels/index.js';
import type { PrintBatch, SheetCalibrationStore } from '../records/index.js';
import type { FoundLabel } from './label-records.js';
import type { LabelKind } from '../records/index.js';
import type { BatchOrder, PrintBy } from './label-service.js';
import type { Selection, SelectLabels } from './selection.js';

/** The offset a sheet is printed with, and where it came from (the Sheet-Offset header says both). */
export interface SheetOffset {
  x: number;
  y: number;
  source: OffsetFrom;
}

/** A page for a sheet product: its template (the default for none) and the request's own offset, if it gives one. */
export interface PageOrder {
  product: SheetProduct;
  template?: string;
  offsetXMm?: number;
  offsetYMm?: number;
}

/** A selection's labels on sheets of a product. */
export interface SheetOrder extends PageOrder {
  selection: Selection;
  /** Of each label (default 1). */
  copies?: number;
  /** Position (1-based) of the first label on the first page (checked against the product by the caller). */
  startAt?: number;
  guides?: boolean;
}

export interface DrawnPage extends SheetPdf {
  offset: SheetOffset;
}

/** A selection printed as one batch of jobs, `copies` of each label. */
export interface SelectionPrintOrder extends PrintBy {
  selection: Selection;
  /** Of each label (default 1). */
  copies?: number;
  /** The template name: for none, the default (a `stale` selection: each record's last label's, lastTemplate). */
  template?: string;
}

export interface PrintedSelection {
  batch: PrintBatch;
  /** False for an idempotent replay (the same key and the same request). */
  created: boolean;
  /** Copies of each label. */
  copies: number;
  /** The selection's labels in print order, as drawn now (a replay's jobs may hold others: compare counts). */
  labels: { found: FoundLabel; drawn: RenderedBytes }[];
  /** A selection with `limit` had more records than the batch took. */
  more: boolean;
}

export interface SelectionLabels {
  sheet(order: SheetOrder): Promise<DrawnPage>;
  calibrationPage(order: PageOrder): Promise<DrawnPage>;
  printSelection(order: SelectionPrintOrder): Promise<PrintedSelection>;
}

export interface SelectionLabelsDeps {
  select: SelectLabels;
  template: (name?: string) => Promise<Template>;
  /** The template of a record's last printed label as it is now; undefined when it has none or that template is gone. */
  lastTemplate: (kind: LabelKind, id: string) => Promise<Template | undefined>;
  renderer: Pick<Renderer, 'render' | 'sheet' | 'calibration' | 'threads'>;
  /** Saved calibrations: a sheet that gives no offset takes its product's. */
  calibrations: Pick<SheetCalibrationStore, 'get'>;
  /** Stores a batch's jobs (the label service's, which names them). */
  printBatch: (order: BatchOrder) => Promise<{ batch: PrintBatch; created: boolean }>;
  /** The records revision, read before a printed selection's records are (LabelShown.revision). */
  revision: () => Promise<number>;
  defaultTemplateName: string;
  footer: string | undefined;
  /** Drawing stops (SheetTimeoutError, 503, nothing stored) after this long, inside the request time-out. */
  renderTimeoutMs: number;
  /** The record as its label is drawn, with its place in the selection (from 1) for `{counter}` (label-service.ts labelInputs). */
  drawnRecord: (record: LabelRecord, template: Template, counter: number) => LabelRecord;
}

/**
 * Renders of one batch in flight at once, per render thread: enough to keep every
 * thread drawing (render-pool.ts queues a few per thread), few enough that a
 * single-label request arriving meanwhile waits behind a handful of this batch's
 * labels, not behind all 1000 of them.
 */
const IN_FLIGHT_PER_THREAD = 2;

export function selectionLabels({ select, template, lastTemplate, renderer, calibrations, printBatch, revision, defaultTemplateName, footer, renderTimeoutMs, drawnRecord }: SelectionLabelsDeps): SelectionLabels {
  /** The selection's records in print order, each with its place (copies of a label share theirs: they are the same label). */
  const numbered = (found: FoundLabel[], templates: readonly Template[]): FoundLabel[] => found.map((label, i) => ({ ...label, record: drawnRecord(label.record, templates[i]!, i + 1) }));
  return {
    async sheet({ product, selection, copies = 1, startAt, guides = false, ...page }) {
      const offset = await sheetOffset(product.name, page, calibrations);
      const t = await template(page.template);
      const { found: selected } = await select(selection, copies);
      const found = numbered(selected, selected.map(() => t));
      const pdf = await renderer.sheet(
        found.map(({ record }) => ({ record, copies })),
        { product, template: t, startAt, guides, footer, offsetMm: { x: offset.x, y: offset.y }, deadline: Date.now() + renderTimeoutMs },
      );
      return { ...pdf, offset };
    },

    async calibrationPage({ product, ...page }) {
      const offset = await sheetOffset(product.name, page, calibrations);
      const t = await template(page.template);
      const pdf = await renderer.calibration({ product, template: t, offsetMm: { x: offset.x, y: offset.y }, offsetFrom: offset.source });
      return { ...pdf, offset };
    },

    async printSelection({ selection, copies = 1, template: named, tokenId, idempotencyKey, printer }) {
      const name = named ?? defaultTemplateName;
      const t = await template(name);
      const before = await revision();
      const { found: selected, more } = await select(selection, copies);
      // A stale label is reprinted as it was printed: with its last label's template, unless the request names one.
      const asLast = named === undefined && 'labels' in selection && selection.labels === 'stale';
      const templates = asLast ? await inOrder(selected, 1, async ({ record }) => (await lastTemplate(record.kind, record.id)) ?? t) : selected.map(() => t);
      const found = numbered(selected, templates);
      const deadline = Date.now() + renderTimeoutMs;
      // Not through the label cache: a batch's labels would push every single label out of it.
      const drawn = await inOrder(found, Math.max(1, renderer.threads) * IN_FLIGHT_PER_THREAD, async ({ record }, done, i) => {
        if (Date.now() > deadline) throw new SheetTimeoutError(`the batch took longer than its time limit after ${done} labels`);
        return renderer.render(record, templates[i]!, { footer });
      });
      const { batch, created } = await printBatch({
        labels: found.map((label, i) => ({ found: label, png: drawn[i]!.png, template: templates[i]! })),
        copies,
        tokenId,
        idempotencyKey,
        printer,
        revision: before,
        // The request as the server reads it (defaults applied, members in a fixed order): a replayed key must bring the same one.
        // A named printer is part of it; without one the digest is what it was before printers had names.
        // A stale selection without a template (each label its last one's) is not the same request as one naming the default.
        requestHash: createHash('sha256').update(canonicalJson({ selection, copies, template: asLast ? null : name, ...(printer === undefined ? {} : { printer }) })).digest('base64url'),
      });
      return { batch, created, copies, more, labels: found.map((label, i) => ({ found: label, drawn: drawn[i]! })) };
    },
  };
}

/**
 * The offset a sheet is printed with: the request's own when it gives either offset (the
 * other one 0), else the product's saved calibration, else none.
 */
export async function sheetOffset(
  product: string,
  request: { offsetXMm?: number; offsetYMm?: number },
  store: Pick<SheetCalibrationStore, 'get'>,
): Promise<SheetOffset> {
  if (request.offsetXMm !== undefined || request.offsetYMm !== undefined) return { x: request.offsetXMm ?? 0, y: request.offsetYMm ?? 0, source: 'request' };
  const saved = await store.get(product);
  return saved ? { x: saved.offsetXMm, y: saved.offsetYMm, source: 'saved' } : { x: 0, y: 0, source: 'none' };
}

/**
 * `work` over every item, at most `limit` at once, results in the items' order.
 * `done` counts the items finished before this one started. Each item starts on a
 * turn of the event loop of its own (setImmediate), so renders that finish at once
 * (the in-thread renderer) cannot chain into one long turn. The first failure
 * stops every lane: nothing more is started for a batch that fails anyway.
 */
async function inOrder<T, R>(items: readonly T[], limit: number, work: (item: T, done: number, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      await new Promise((resolve) => setImmediate(resolve));
      try {
        results[i] = await work(items[i]!, done, i);
      } catch (err) {
        failed = true;
        throw err;
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** JSON with object members sorted: the same request gives the same text whatever its members' order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
