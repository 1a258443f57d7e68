/**
 * A label on the wire: its validators (ETag from the label's inputs, so a 304 needs
 * no drawing), its warnings, its bytes. Shared by the label operations, previews and
 * Homebox; what is drawn comes from the label service (label-service.ts).
 */
import type { Response } from 'express';
import type { LabelRecord } from '../labels/index.js';
import { addHeader } from './headers.js';

export const PRINT_JOBS_PATH = '/v1/labelmaker/print-jobs';

/** `Label-Warnings` header value: what the reader should know about the label (see the spec). */
export function warningsHeader(warnings: string[], missing: number[]): string | undefined {
  if (!warnings.length) return undefined;
  return warnings.map((w) => (w === 'missing-glyphs' ? `${w}=${glyphNames(missing).join(' ')}` : w)).join(', ');
}

/** Code points printed as boxes, as warnings name them: `U+10437`, at most 32. */
export function glyphNames(missing: readonly number[]): string[] {
  return missing.slice(0, 32).map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * The validators and disposition of a label answer (200 or 304). The ETag names the
 * label's inputs (record, template and its revision, footer, engine): equal inputs draw equal bytes.
 */
export function labelValidators(record: LabelRecord, key: string): { ETag: string; 'Cache-Control': string; 'Content-Disposition': string } {
  return {
    ETag: `"${key}"`,
    'Cache-Control': 'private, no-cache',
    'Content-Disposition': `inline; filename="${record.kind}-label.png"`,
  };
}

/** Adds the label's validators (labelValidators) to the answer's headers (written with its status line, headers.ts). */
export function setLabelValidators(res: Response, record: LabelRecord, key: string): void {
  const headers = labelValidators(record, key);
  addHeader(res, 'ETag', headers.ETag);
  addHeader(res, 'Cache-Control', headers['Cache-Control']);
  addHeader(res, 'Content-Disposition', headers['Content-Disposition']);
}

/** RFC 9110 If-None-Match: a list of entity tags (weak comparison) or `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** A PNG answer (200). res.end(), not res.send(): send() turns a matching If-None-Match into a 304 on its own. */
export function sendPng(res: Response, png: Buffer): void {
  // One writeHead with the headers collected so far (headers.ts), not Express's type()/set() nor setHeader one by one.
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
  res.end(png);
}
