/**
 * The label service: "draw this record with this template, and maybe print it",
 * the one way every operation gets a label. It finds the record (ours by kind and
 * id, label-records.ts; or one the caller brings whole, as Homebox and Grocy do),
 * resolves the template (a name, the default for none, or one the caller made),
 * keys and caches the label (label-cache.ts), draws it on the render threads and,
 * when asked, stores its print job with the token's id and idempotency key. A
 * selection's labels, on a sheet PDF, a calibration page or printed as one batch,
 * are drawn here too (selection-labels.ts); images are fitted and printed through it.
 *
 * It knows nothing of HTTP: handlers read the request, call it, and write what it
 * returns (validators, warnings, Print-Job) on the answer.
 */
import { LABEL_KIND_FACTS, type LabelKind, type LabelShown, type RecordKind, type NewPrintJob, type PrinterStore, type PrintJob, type PrintJobStore, type RecordSearch, type RecordStore, type SheetCalibrationStore, type TemplateStore } from '../records/index.js';
import { fingerprintKind, labelFingerprint, templateUses, type FittedImage, type LabelRecord, type RenderedBytes, type Renderer, type Template } from '../labels/index.js';
import { adviseFleet, assignPrinter, PrintingNotConfiguredError, type Assignment, type FleetAdvice, type PrintQueue, type PrintRequest } from '../printing/index.js';
import { labelCache, type LabelCache } from './label-cache.js';
import { labelOf, labelRecords, type FoundLabel } from './label-records.js';
import { HttpProblem } from './problems.js';
import { selectLabels } from './selection.js';
import { selectionLabels, type SelectionLabels } from './selection-labels.js';
import { templateResolver } from './templates.js';

/** A record of ours, named as a label operation names it (an asset by its asset id). */
export interface RecordRef {
  kind: LabelKind;
  id: string;
}

/** Who prints, for a print job: idempotency keys are per token. */
export interface PrintBy {
  tokenId: string;
  /** The client's Idempotency-Key: the same key (per token) gives the same job. */
  idempotencyKey?: string;
  /** The printer the request names (query or body `printer`); the routing rule chooses when absent (printing/routing.ts). */
  printer?: string;
}

interface LabelOptions {
  /** A template name (the default template when absent), or a template the caller made (a preview's design, Grocy's). */
  template?: string | Template;
  /** Where a template name came from, for the 400 when it names nothing (default: the query's `template`). */
  templateParameter?: string;
  /** The footer instead of LABEL_FOOTER; null for none (Grocy's labels carry none). */
  footer?: string | null;
}

/** What to draw: a record of ours, found by kind and id (and printed when asked), or a record given whole. */
export type LabelOrder = LabelOptions & ({ find: RecordRef; print?: PrintBy } | { record: LabelRecord });

/** A label ready to draw: its record, template and key, nothing drawn yet. */
export interface ResolvedLabel {
  record: LabelRecord;
  template: Template;
  footer: string | undefined;
  /** The label's key in the cache and its ETag (without quotes), from its inputs alone. */
  key: string;
  /** The print job to store once it is drawn, when printing was asked (with the records revision read before the record). */
  print: (Omit<PrintOrder, 'png' | 'template' | 'shown'> & { revision: number }) | undefined;
}

export interface DrawnLabel extends ResolvedLabel, RenderedBytes {
  /** The print job, when printing was asked. */
  job: PrintJob | undefined;
}

/** A print job of a label drawn or fitted elsewhere (an image, a Grocy label). */
export interface PrintOrder extends PrintBy {
  png: Buffer;
  /** The template it was made for: the job carries its stock. */
  template: Template;
  /** The job's name on the printer (made one line of at most 200 characters). */
  title: string;
  fields: Record<string, string>;
  /** The record of ours the label shows (its location places the job, routing.ts); none for images and records given whole. */
  placedBy?: RecordRef;
  /** What the label shows, remembered when it prints (which labels are stale); none for images and records given whole. */
  shown?: LabelShown;
}

/** A selection's labels, drawn, stored as one batch of jobs (all or none). */
export interface BatchOrder extends PrintBy {
  /** Each with the template it was drawn with (a stale reprint's may differ: its last label's). */
  labels: readonly { found: FoundLabel; png: Buffer; template: Template }[];
  copies: number;
  /** Digest of the request as the server reads it: a replayed key must bring the same one. */
  requestHash: string;
  /** The records revision read before the selection's records were (LabelShown.revision). */
  revision: number;
}

export interface LabelService extends SelectionLabels {
  /** LABEL_TEMPLATE: the template of a request that names none. */
  readonly defaultTemplateName: string;
  /** LABEL_FOOTER: the footer of designs that leave it to the server. */
  readonly footer: string | undefined;
  /** The rendered-label cache (its stats() for tests and the fast lane). */
  readonly cache: LabelCache;
  /** Our record of a kind by id, as its label shows it; a not-found problem when there is none. */
  find(kind: LabelKind, id: string): Promise<FoundLabel>;
  /** What a template name stands for (built-in or saved); undefined is the default template. */
  template(name?: string, parameter?: string): Promise<Template>;
  /** Finds the record and template and keys the label, drawing nothing (a matching If-None-Match needs no more). */
  resolve(order: LabelOrder): Promise<ResolvedLabel>;
  /** Draws a resolved label (or takes it from the cache), and prints it when it was asked to. */
  draw(label: ResolvedLabel): Promise<DrawnLabel>;
  /** resolve, then draw. */
  label(order: LabelOrder): Promise<DrawnLabel>;
  /** An uploaded PNG checked, decoded and fitted to the template's stock, off the event loop (ImageError when it cannot be printed). */
  fitImage(png: Buffer, template: Template): Promise<FittedImage>;
  /** Stores a print job (counted by the print quota, print-quota.ts); `created` is false for an idempotent replay. */
  print(order: PrintOrder): Promise<{ job: PrintJob; created: boolean }>;
  /** The job print() would store (routed, held or not), not stored: print rules store theirs with their consumer's cursor (src/events/print-rules.ts). */
  preparePrint(order: PrintOrder): Promise<NewPrintJob>;
  /** Rejects with the 501 of a server whose fleet has no printer; `advice` says what to do instead. */
  requirePrinter(advice?: string): Promise<void>;
  /**
   * Which printer a label would go to and which printers can print it now (listPrinters with a
   * label named): the record found (not-found problem), the template resolved (400), then the
   * routing and hold rules as a print applies them. Nothing is drawn or printed.
   */
  printersFor(label: { find?: RecordRef; template?: string }): Promise<FleetAdvice & { stock: string }>;
  /**
   * What a printed label of ours (as printed_labels remembers it) would show if printed now
   * with the template of its name as that is now (labelFingerprint), and that template's
   * version; undefined when its record, its asset id or its template is gone, or its
   * fingerprint is of an older form. The label-staleness consumer compares it (issue 32).
   */
  fingerprintNow(printed: { kind: RecordKind; id: string; template: string; fingerprint: string }): Promise<{ fingerprint: string; templateVersion: string } | undefined>;
}

export interface LabelServiceDeps {
  store: {
    records: RecordStore;
    search: RecordSearch;
    templates: TemplateStore;
    calibrations: Pick<SheetCalibrationStore, 'get'>;
    printers: Pick<PrinterStore, 'list'>;
    /** A record's last printed label: a stale label is reprinted with its template. */
    printJobs: Pick<PrintJobStore, 'printedLabel'>;
  };
  renderer: Pick<Renderer, 'render' | 'fitImage' | 'sheet' | 'calibration' | 'threads'>;
  /** Undefined: this service prints nothing (tests, tools). */
  printQueue: PrintQueue | undefined;
  /** The printer that takes jobs while none is stored (PRINTER_URI's `default`); undefined: none. */
  fallbackPrinter?: string;
  defaultTemplateName: string;
  footer: string | undefined;
  /** PUBLIC_BASE_URL: the front-end address a label's code carries. */
  publicBaseUrl: string;
  /** LABEL_CACHE_MB in bytes (0: no cache). */
  cacheBytes: number;
  /** Sheets and batches stop drawing (503, nothing printed) after this long, inside the request time-out. */
  renderTimeoutMs: number;
  /** The clock a design's `{today}` reads (tests inject one); default the system's. */
  now?: () => Date;
  /** The IANA time zone `{today}` is the day in (LABEL_TIME_ZONE); default UTC. */
  timeZone?: string;
}

export function labelService({ store, renderer, printQueue, fallbackPrinter, defaultTemplateName, footer, publicBaseUrl, cacheBytes, renderTimeoutMs, now = () => new Date(), timeZone = 'UTC' }: LabelServiceDeps): LabelService {
  const today = dayIn(timeZone);
  const cache = labelCache(renderer, cacheBytes);
  const find = labelRecords(store.records, publicBaseUrl);
  const select = selectLabels({ records: store.records, search: store.search, labelFor: find, publicBaseUrl });
  const resolveTemplate = templateResolver(store.templates);
  const template = (name = defaultTemplateName, parameter?: string) => resolveTemplate(name, parameter);

  const queueOf = (advice?: string): PrintQueue => {
    if (printQueue) return printQueue;
    throw new PrintingNotConfiguredError(advice);
  };
  /** Before drawing anything to print: a server whose fleet has no printer (yet) answers 501 at once. */
  const requirePrinter = async (advice?: string): Promise<void> => {
    queueOf(advice);
    if (fallbackPrinter === undefined && (await store.printers.list()).length === 0) throw new PrintingNotConfiguredError(advice);
  };

  /** The location ids above a record of ours, nearest first (its own, for a location); cycles and dangling parents end it. */
  const locationsOf = async (ref: RecordRef | undefined): Promise<string[]> => {
    if (!ref) return [];
    const kind = LABEL_KIND_FACTS[ref.kind].recordKind;
    const own = kind === 'location' ? await store.records.getLocation(ref.id) : await store.records.getItem(ref.id);
    const chain: string[] = [];
    let next = kind === 'location' ? (own?.id ?? null) : (own?.parentId ?? null);
    while (next !== null && !chain.includes(next) && chain.length < 64) {
      chain.push(next);
      next = (await store.records.getLocation(next))?.parentId ?? null;
    }
    return chain;
  };

  /** The printer a job goes to and its hold there (printing/assign.ts): the one place print jobs are routed. */
  const assign = (stock: string, requested: string | undefined, placedBy: RecordRef | undefined): Promise<Assignment> =>
    assignPrinter(store.printers, { requested, stock, locations: () => locationsOf(placedBy) }, fallbackPrinter);

  /** A print order routed (assign) as the queue takes it. */
  const printRequest = async ({ png, template: t, title, fields, tokenId, idempotencyKey, printer, placedBy, shown }: PrintOrder): Promise<PrintRequest> => ({
    png,
    // Printers need the stock (its dots and media ids): the canonical stock name.
    stockName: t.stock.name,
    title: jobTitle(title),
    fields,
    tokenId,
    idempotencyKey,
    label: shown,
    ...(await assign(t.stock.name, printer, placedBy)),
  });

  const print = async (order: PrintOrder) => {
    const queue = queueOf();
    return queue.submit(await printRequest(order));
  };

  /**
   * A batch's jobs stored in one transaction, `copies` of each label, all to one printer (chosen
   * for the first label's stock and placed by its record). A job of another stock (a stale
   * reprint, each label with its last template) is held there as that stock would be.
   */
  const printBatch = async ({ labels, copies, tokenId, idempotencyKey, requestHash, printer, revision }: BatchOrder) => {
    const queue = queueOf();
    const first = labels[0]!;
    const stockName = first.template.stock.name;
    const assigned = await assign(stockName, printer, { kind: first.found.record.kind, id: first.found.fields.id ?? first.found.record.id });
    const held = new Map([[stockName, assigned.heldReason]]);
    for (const { template: t } of labels) {
      if (!held.has(t.stock.name)) held.set(t.stock.name, (await assign(t.stock.name, assigned.printer, undefined)).heldReason);
    }
    return queue.submitBatch({
      labels: labels.flatMap(({ found, png, template: t }) => {
        const title = jobTitle(labelTitle(found));
        const label = shownOf(found.record, t, footer, revision);
        return Array.from({ length: copies }, () => ({ png, stockName: t.stock.name, title, fields: found.fields, label, heldReason: held.get(t.stock.name)! }));
      }),
      stockName,
      tokenId,
      idempotencyKey,
      requestHash,
      printer: assigned.printer,
    });
  };

  /** The template of a record's last printed label as it is now; undefined when it has none, or that template is gone. */
  const lastTemplate = async (kind: LabelKind, id: string): Promise<Template | undefined> => {
    const last = await store.printJobs.printedLabel(LABEL_KIND_FACTS[kind].recordKind, id);
    if (!last) return undefined;
    try {
      return await template(last.template);
    } catch (err) {
      if (err instanceof HttpProblem && err.problem === 'invalid-request') return undefined;
      throw err;
    }
  };

  /**
   * The record as its label is drawn: with the day for a design naming {today} and its place
   * (from 1) for one naming {counter} (labelInputs), so the key, the ETag and the drawing agree.
   */
  const drawnRecord = (record: LabelRecord, t: Template, counter?: number): LabelRecord => labelInputs(record, t, () => today(now()), counter);

  const resolve = async (order: LabelOrder): Promise<ResolvedLabel> => {
    let record: LabelRecord;
    let printing: ResolvedLabel['print'];
    if ('find' in order) {
      // Read before the record: a change after it makes the printed label stale (sql/label-state.ts).
      const revision = order.print ? await store.records.revision() : 0;
      const found = await find(order.find.kind, order.find.id);
      record = found.record;
      if (order.print) {
        await requirePrinter('fetch the label without print=true.');
        printing = { ...order.print, title: labelTitle(found), fields: found.fields, placedBy: { kind: order.find.kind, id: found.record.id }, revision };
      }
    } else record = order.record;
    const t = typeof order.template === 'object' ? order.template : await template(order.template, order.templateParameter);
    record = drawnRecord(record, t);
    const labelFooter = order.footer === null ? undefined : (order.footer ?? footer);
    return { record, template: t, footer: labelFooter, key: cache.keyOf(record, t, labelFooter), print: printing };
  };

  const draw = async (label: ResolvedLabel): Promise<DrawnLabel> => {
    const drawn = await cache.get(label.key, label.record, label.template, label.footer);
    let job: PrintJob | undefined;
    if (label.print) {
      const { revision, ...order } = label.print;
      job = (await print({ png: drawn.png, template: label.template, ...order, shown: shownOf(label.record, label.template, label.footer, revision) })).job;
    }
    return { ...label, ...drawn, job };
  };

  return {
    defaultTemplateName,
    footer,
    cache,
    find,
    template,
    resolve,
    draw,
    label: async (order) => draw(await resolve(order)),
    fitImage: (png, t) => renderer.fitImage(png, t.stock),
    print,
    async preparePrint(order) {
      const queue = queueOf();
      return queue.prepare(await printRequest(order));
    },
    requirePrinter,
    async printersFor({ find: ref, template: name }) {
      // The record first: a label of no record is a 404 before its template is looked at, as the label operations answer.
      const placedBy = ref && { kind: ref.kind, id: (await find(ref.kind, ref.id)).record.id };
      const stock = (await template(name, 'template')).stock.name;
      return { stock, ...(await adviseFleet(store.printers, { stock, locations: () => locationsOf(placedBy) })) };
    },
    async fingerprintNow({ kind: recordKind, id, template: name, fingerprint }) {
      const kind = fingerprintKind(fingerprint);
      if (!kind || LABEL_KIND_FACTS[kind].recordKind !== recordKind) return undefined;
      const placed = await store.records.getWithPath({ kind: recordKind, id });
      const byAssetId = LABEL_KIND_FACTS[kind].byAssetId;
      if (!placed || (byAssetId && placed.record.assetId === null)) return undefined;
      let t: Template;
      try {
        t = await template(name);
      } catch (err) {
        if (err instanceof HttpProblem) return undefined; // no template of that name any more
        throw err;
      }
      const { record } = labelOf(kind, placed.record, placed.path, publicBaseUrl, byAssetId ? placed.record.assetId! : undefined);
      return { fingerprint: labelFingerprint(record, t, footer), templateVersion: t.revision ?? '' };
    },
    ...selectionLabels({ select, template, lastTemplate, renderer, calibrations: store.calibrations, printBatch, revision: () => store.records.revision(), defaultTemplateName, footer, renderTimeoutMs, drawnRecord }),
  };
}

/** The day (YYYY-MM-DD) a moment falls on in an IANA time zone. */
export function dayIn(timeZone: string): (at: Date) => string {
  const format = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (at) => {
    const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
    return `${parts.year}-${parts.month}-${parts.day}`;
  };
}

/**
 * A record with what only its template's design reads: the day (`today`: the clock's moment
 * as a day, in LABEL_TIME_ZONE) where it names {today}, its place in a sheet or batch where it
 * names {counter} (1 for a single label). The same record, untouched, for every other design.
 */
export function labelInputs(record: LabelRecord, t: Template, today: () => string, counter?: number): LabelRecord {
  const dated = templateUses(t, 'today');
  const counts = templateUses(t, 'counter');
  if (!dated && !counts) return record;
  return { ...record, ...(dated ? { today: today() } : {}), ...(counts ? { counter: counter ?? 1 } : {}) };
}

/**
 * What a label of one of our records shows, as its job remembers it: the record (an asset
 * label is its item's), what it shows as its fingerprint (labels/fingerprint.ts: not the
 * cache key, which also digests what it does not show), and the template's name and version.
 */
function shownOf(record: LabelRecord, t: Template, footer: string | undefined, revision: number): LabelShown {
  return { kind: LABEL_KIND_FACTS[record.kind].recordKind, id: record.id, fingerprint: labelFingerprint(record, t, footer), template: t.name, templateVersion: t.revision ?? '', revision };
}

/** A found record's print job name: "item label: Cordless drill", an asset by its asset id. */
function labelTitle({ record, fields }: FoundLabel): string {
  return `${record.kind} label: ${LABEL_KIND_FACTS[record.kind].byAssetId ? fields.assetId : record.name}`;
}

/** One line, at most 200 characters, never cutting a character in two (names may hold anything). */
export function jobTitle(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= 200 ? line : `${chars.slice(0, 199).join('')}…`;
}
