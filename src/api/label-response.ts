/**
 * Turns a record into the HTTP response: resolve the template, validators
 * (ETag from the label's inputs, 304 without drawing), the label (cached or
 * drawn: label-cache.ts), warnings, optional printing, headers. Shared by the
 * three label operations.
 */
import type { Request, Response } from 'express';
import { PrintingNotConfiguredError, type PrintQueue } from '../printing/index.js';
import { LABEL_KIND_FACTS, type TokenInfo } from '../records/index.js';
import type { LabelRecord } from '../labels/index.js';

import type { LabelCache } from './label-cache.js';
import type { FoundLabel } from './label-records.js';
import type { TemplateResolver } from './templates.js';

export type LabelResponder = (
  req: Request,
  res: Response,
  label: FoundLabel,
  opts: { print: boolean; templateName: string | undefined },
) => Promise<void>;

export interface ResponderDeps {
  /** Template name used when a request names none (LABEL_TEMPLATE). */
  defaultTemplateName: string;
  /** LABEL_FOOTER: the footer of the built-in designs. */
  footer: string | undefined;
  /** Undefined when no printer is configured. */
  printQueue: PrintQueue | undefined;
  /** The authenticated token of this request (set by the router). */
  tokenOf: (res: Response) => TokenInfo;
  /** Draws labels (off the event loop) and keeps them. */
  labels: LabelCache;
  /** What a `template` name stands for (built-in or saved). */
  resolveTemplate: TemplateResolver;
}

export const PRINT_JOBS_PATH = '/v1/labelmaker/print-jobs';

/** `Label-Warnings` header value: what the reader should know about the label (see the spec). */
export function warningsHeader(warnings: string[], missing: number[]): string | undefined {
  if (!warnings.length) return undefined;
  const shown = missing.slice(0, 32).map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  return warnings.map((w) => (w === 'missing-glyphs' ? `${w}=${shown.join(' ')}` : w)).join(', ');
}

export function labelResponder({ defaultTemplateName, footer, printQueue, tokenOf, labels, resolveTemplate }: ResponderDeps): LabelResponder {
  return async (req, res, { record, fields }, { print, templateName = defaultTemplateName }) => {
    if (print && !printQueue) throw new PrintingNotConfiguredError('fetch the label without print=true.');
    const template = await resolveTemplate(templateName);
    const key = labels.keyOf(record, template, footer);
    const validators = labelValidators(record, key);
    res.set(validators);
    if (!print && etagMatches(req.get('If-None-Match'), validators.ETag)) {
      // Answered without drawing (a 304 carries validators, not Label-Warnings: see the spec).
      res.status(304).end();
      return;
    }
    const { png, warnings, missingGlyphs } = await labels.get(key, record, template, footer);
    const warning = warningsHeader(warnings, missingGlyphs);
    if (warning) res.set('Label-Warnings', warning);
    if (print && printQueue) {
      const { job } = await printQueue.submit({
        png,
        // Printers need the stock (its dots and media ids): the canonical stock name.
        stockName: template.stock.name,
        title: labelJobTitle({ record, fields }),
        fields,
        tokenId: tokenOf(res).id,
        idempotencyKey: req.get('Idempotency-Key'),
      });
      res.set('Print-Job', `${PRINT_JOBS_PATH}/${job.id}`);
      // A print request ignores If-None-Match: it printed, and the client needs Print-Job.
      // res.end(), not res.send(): send() turns a matching If-None-Match into a 304 on its own.
      res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
      return;
    }
    res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
  };
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

/** RFC 9110 If-None-Match: a list of entity tags (weak comparison) or `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** A label's print job title: `asset label: 000-001`, `item label: Cordless drill`. */
export function labelJobTitle({ record, fields }: FoundLabel): string {
  return jobTitle(`${record.kind} label: ${LABEL_KIND_FACTS[record.kind].byAssetId ? fields.assetId : record.name}`);
}

/** One line, at most 200 characters, never cutting a character in two (names may hold anything). */
export function jobTitle(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= 200 ? line : `${chars.slice(0, 199).join('')}…`;
}
