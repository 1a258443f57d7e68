/**
 * Rendered labels, cached by what determines their bytes: the record as the
 * label sees it (kind, id, name, location path, asset id, URL), the template
 * (its stock and designs, not just its name), the footer and the engine's
 * fingerprint (code, fonts, canvas); for a design naming `{today}` the day it is
 * drawn, for one naming `{counter}` the label's place in its batch. A change to a record, or to the name of a
 * location above it, changes what the store returns, hence the key: the next
 * label is drawn afresh, and the stale entry ages out of the LRU unread. No
 * invalidation message is needed, so every instance of a scaled-out service
 * stays correct on its own.
 *
 * The same key is the label's ETag, so a revalidation (If-None-Match) is
 * answered from the inputs alone: a 304 never renders.
 *
 * Bounded by bytes (LABEL_CACHE_MB), least recently used out first. Concurrent
 * requests for a label being drawn wait for that one render.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { LabelRecord, Template } from '../labels/index.js';
import { bytesAsDigest, engineVersion, type RenderedBytes, type Renderer } from '../labels/index.js';
import { countRenderCacheLookup, observeRender } from '../metrics.js';

export interface LabelCacheStats {
  /** Labels answered from the cache. */
  hits: number;
  /** Labels drawn (a miss renders once, however many requests waited for it). */
  renders: number;
  /** Requests that waited for a render already in progress. */
  coalesced: number;
  entries: number;
  bytes: number;
}

export interface LabelCache {
  /** The label's key and ETag value (without quotes), from its inputs alone. */
  keyOf(record: LabelRecord, template: Template, footer: string | undefined): string;
  /** The label under that key: from the cache, or drawn (once) and kept. */
  get(key: string, record: LabelRecord, template: Template, footer: string | undefined): Promise<RenderedBytes>;
  stats(): LabelCacheStats;
}

/**
 * A template as text, for keys. Built-in templates share their stock and designs
 * objects (a request gets a new wrapper), so the text is kept per pair; a template
 * made of other objects (a saved one) is written out each time.
 */
const templateTexts = new WeakMap<object, WeakMap<object, string>>();
function templateText(t: Template): string {
  let byDesigns = templateTexts.get(t.stock);
  if (!byDesigns) templateTexts.set(t.stock, (byDesigns = new WeakMap()));
  let text = byDesigns.get(t.designs);
  if (text === undefined) byDesigns.set(t.designs, (text = JSON.stringify({ stock: t.stock, designs: t.designs }, bytesAsDigest)));
  const { stock: _s, designs: _d, ...rest } = t; // name, and whatever else a template may carry
  return `${JSON.stringify(rest)}\0${text}`;
}

/** Bookkeeping per entry besides its PNG (key, arrays, object headers): an estimate, so the bound holds. */
const ENTRY_OVERHEAD = 256;

export function labelCache(renderer: Pick<Renderer, 'render'>, maxBytes: number): LabelCache {
  const engine = engineVersion();
  const lru = maxBytes > 0
    ? new LRUCache<string, RenderedBytes>({ maxSize: maxBytes, sizeCalculation: (v) => v.png.length + ENTRY_OVERHEAD })
    : undefined;
  const drawing = new Map<string, Promise<RenderedBytes>>();
  const counts = { hits: 0, renders: 0, coalesced: 0 };
  const lastKeys = new WeakMap<LabelRecord, Pick<Template, 'stock' | 'designs' | 'name' | 'revision'> & { footer: string | undefined; key: string }>();

  return {
    keyOf(record, template, footer) {
      // A record object asked about again (label-records.ts keeps them between changes)
      // with the same template parts gets its last key without hashing again.
      const last = lastKeys.get(record);
      if (last && last.stock === template.stock && last.designs === template.designs && last.name === template.name && last.revision === template.revision && last.footer === footer) {
        return last.key;
      }
      // Fixed field order, so equal inputs give equal keys.
      // The day and the place in a batch only where the label service set them (a design naming {today} or {counter}): every other key stays as it was.
      const drawnOn = record.today === undefined && record.counter === undefined ? [] : [record.today ?? null, record.counter ?? null];
      const inputs = JSON.stringify([engine, templateText(template), footer ?? null, record.kind, record.id, record.name, record.path, record.assetId ?? null, record.url, record.description ?? null, record.fields ?? null, ...drawnOn]);
      const key = createHash('sha256').update(inputs).digest('base64url').slice(0, 27);
      lastKeys.set(record, { stock: template.stock, designs: template.designs, name: template.name, revision: template.revision, footer, key });
      return key;
    },
    async get(key, record, template, footer) {
      const cached = lru?.get(key);
      if (cached) {
        counts.hits++;
        countRenderCacheLookup(true);
        return cached;
      }
      const pending = drawing.get(key);
      if (pending) {
        counts.coalesced++;
        countRenderCacheLookup(true); // served without a render of its own
        return pending;
      }
      counts.renders++;
      countRenderCacheLookup(false);
      const started = process.hrtime.bigint();
      const render = renderer
        .render(record, template, { footer })
        .then((label) => {
          observeRender(template.stock.name, Number(process.hrtime.bigint() - started) / 1e9); // in the pool: includes waiting for a thread
          return label;
        })
        .finally(() => drawing.delete(key));
      drawing.set(key, render);
      const label = await render;
      lru?.set(key, label);
      return label;
    },
    stats: () => ({ ...counts, entries: lru?.size ?? 0, bytes: lru?.calculatedSize ?? 0 }),
  };
}
