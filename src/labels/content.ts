/**
 * What goes on a label, decided from a record and its location path. Pure: the
 * API layer fetches the record, this decides the words, render.ts draws them.
 * Descriptions stay off labels: they are free text of any length, and a label
 * is read at arm's length.
 */
import { formatAssetId } from '../records/asset-id.js';
import type { InventoryRecord } from '../records/types.js';
import type { LabelContent } from './types.js';

export interface ContentOptions {
  /** Base of the inventory front-end's URLs, without a trailing slash. */
  publicBaseUrl: string;
  footer?: string;
}

const SEPARATOR = ' › ';
/** Deep paths keep their most specific end: "… › Shelf 3 › Bin 12". */
const MAX_PATH_SEGMENTS = 4;

export function locationLabel(location: InventoryRecord, parentPath: string[], opts: ContentOptions): LabelContent {
  return withFooter(
    {
      kind: 'location',
      title: location.name,
      lines: nonEmpty([formatPath(parentPath)]),
      qrUrl: `${opts.publicBaseUrl}/location/${encodeURIComponent(location.id)}`,
    },
    opts,
  );
}

export function itemLabel(item: InventoryRecord, locationPath: string[], opts: ContentOptions): LabelContent {
  return withFooter(
    {
      kind: 'item',
      title: item.name,
      lines: nonEmpty([formatPath(locationPath)]),
      qrUrl: `${opts.publicBaseUrl}/item/${encodeURIComponent(item.id)}`,
    },
    opts,
  );
}

export function assetLabel(item: InventoryRecord, assetId: number, locationPath: string[], opts: ContentOptions): LabelContent {
  const shown = formatAssetId(assetId);
  return withFooter(
    {
      kind: 'asset',
      title: shown,
      lines: nonEmpty([item.name, formatPath(locationPath)]),
      qrUrl: `${opts.publicBaseUrl}/a/${shown}`,
      barcode: shown,
    },
    opts,
  );
}

export function formatPath(names: string[]): string {
  const kept = names.length > MAX_PATH_SEGMENTS ? ['…', ...names.slice(-MAX_PATH_SEGMENTS + 1)] : names;
  return kept.join(SEPARATOR);
}

function nonEmpty(lines: string[]): string[] {
  return lines.map((l) => l.trim()).filter(Boolean);
}

function withFooter(content: LabelContent, opts: ContentOptions): LabelContent {
  return opts.footer ? { ...content, footer: opts.footer } : content;
}
