/**
 * Turns label content into the HTTP response: render, validators (ETag, 304),
 * optional printing, headers. Shared by the three label operations.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { renderLabel, type PresetName } from '../labels/index.js';
import type { LabelContent } from '../labels/types.js';
import { IdempotencyMismatchError } from '../printing/queue.js';
import type { PrintQueue } from '../printing/types.js';
import type { TokenInfo } from '../records/types.js';
import { HttpProblem } from './problems.js';

export interface Label {
  content: LabelContent;
  /** What identifies the record (kind, id, name, assetId, url): print job fields. */
  fields: Record<string, string>;
}

export type LabelResponder = (
  req: Request,
  res: Response,
  label: Label,
  opts: { print: boolean; template: PresetName | undefined },
) => Promise<void>;

export interface ResponderDeps {
  defaultTemplate: PresetName;
  /** Undefined when no printer is configured. */
  printQueue: PrintQueue | undefined;
  /** The authenticated token of this request (set by the router). */
  tokenOf: (res: Response) => TokenInfo;
}

export const PRINT_JOBS_PATH = '/v1/labelmaker/print-jobs';

export function labelResponder({ defaultTemplate, printQueue, tokenOf }: ResponderDeps): LabelResponder {
  return async (req, res, { content, fields }, { print, template = defaultTemplate }) => {
    if (print && !printQueue) {
      throw new HttpProblem('printing-not-configured', 'This server has no printer configured; fetch the label without print=true.');
    }
    const { png } = renderLabel(content, template);
    const etag = `"${createHash('sha256').update(png).digest('base64url').slice(0, 27)}"`;
    res.set({
      ETag: etag,
      'Cache-Control': 'private, no-cache',
      'Content-Disposition': `inline; filename="${content.kind}-label.png"`,
    });
    if (print && printQueue) {
      try {
        const { job } = await printQueue.submit({
          png,
          template,
          title: jobTitle(`${content.kind} label: ${content.title}`),
          fields,
          tokenId: tokenOf(res).id,
          idempotencyKey: req.get('Idempotency-Key'),
        });
        res.set('Print-Job', `${PRINT_JOBS_PATH}/${job.id}`);
      } catch (err) {
        if (err instanceof IdempotencyMismatchError) throw new HttpProblem('idempotency-key-reused', err.message);
        throw err;
      }
      // A print request ignores If-None-Match: it printed, and the client needs Print-Job.
      // res.end(), not res.send(): send() turns a matching If-None-Match into a 304 on its own.
      res.status(200).type('image/png').set('Content-Length', String(png.length)).end(png);
      return;
    } else if (matches(req.get('If-None-Match'), etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).type('image/png').send(png);
  };
}

/** RFC 9110 If-None-Match: a list of entity tags (weak comparison) or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** One line, at most 200 characters, never cutting a character in two (names may hold anything). */
function jobTitle(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= 200 ? line : `${chars.slice(0, 199).join('')}…`;
}
