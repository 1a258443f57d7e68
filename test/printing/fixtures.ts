/** Real labels from the label engine (QR + Code 128) for the driver tests. */
import { randomUUID } from 'node:crypto';
import { builtInTemplate, renderLabel, type LabelRecord, type Template } from '../../src/labels/index.js';
import type { PrintDocument } from '../../src/printing/drivers/types.js';

export const QR_URL = 'https://inventory.example.com/a/000-042';
export const ASSET_ID = '000-042';
/** What the asset barcode encodes: the id's digits (Code 128 set C). */
export const ASSET_DIGITS = '000042';

const ASSET: LabelRecord = { kind: 'asset', id: 'b1e3', name: 'Cordless drill', path: ['Garage', 'Shelf 3', 'Bin 12'], assetId: 42, url: QR_URL };

/**
 * The stock's standard design with a Code 128 wherever one fits (the standard design
 * leaves it out on short stock: see CodeSpec.sturdy), so every driver carries both codes.
 */
function withBarcode(name: string): Template {
  const t = builtInTemplate(name)!;
  const asset = { ...t.designs.asset, codes: t.designs.asset.codes.map((c) => (c.symbology === 'code128' ? { ...c, sturdy: undefined } : c)) };
  return { ...t, designs: { ...t.designs, asset } };
}

export function assetDoc(stockName: string, title = 'asset label: Cordless drill'): PrintDocument {
  return {
    jobId: randomUUID(),
    createdAt: new Date().toISOString(),
    png: renderLabel(ASSET, withBarcode(stockName)).png,
    stockName,
    title,
    fields: { kind: 'asset', id: 'b1e3', name: 'Cordless drill', assetId: ASSET_ID, url: QR_URL },
  };
}

export function never(): AbortSignal {
  return new AbortController().signal;
}

/** A signal that aborts after `ms`, the way the print worker times out an attempt. */
export function timesOutAfter(ms: number): AbortSignal {
  const ac = new AbortController();
  setTimeout(() => ac.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')), ms).unref();
  return ac.signal;
}
