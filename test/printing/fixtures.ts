/** Real labels from the label engine (QR + Code 128) for the driver tests. */
import { randomUUID } from 'node:crypto';
import { renderLabel, type PresetName } from '../../src/labels/index.js';
import type { LabelContent } from '../../src/labels/types.js';
import type { PrintDocument } from '../../src/printing/drivers/types.js';

export const QR_URL = 'https://inventory.example.com/a/000-042';
export const ASSET_ID = '000-042';

const ASSET: LabelContent = {
  kind: 'asset',
  title: ASSET_ID,
  lines: ['Cordless drill', 'Garage › Shelf 3 › Bin 12'],
  barcode: ASSET_ID,
  qrUrl: QR_URL,
};

export function assetDoc(template: PresetName, title = 'asset label: Cordless drill'): PrintDocument {
  return {
    jobId: randomUUID(),
    createdAt: new Date().toISOString(),
    png: renderLabel(ASSET, template).png,
    template,
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
