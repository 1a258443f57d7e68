/**
 * Operation handlers, one per operationId in spec/openapi.yaml. Thin: parse the
 * id, fetch the record, let src/labels decide the content and draw it.
 */
import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { components, operations } from '../../generated/openapi.js';
import type { PrintQueue } from '../printing/types.js';
import { assetLabel, itemLabel, locationLabel, type ContentOptions } from '../labels/content.js';
import { parseAssetId } from '../records/asset-id.js';
import type { InventoryRecord, RecordStore } from '../records/types.js';
import type { Label, LabelResponder } from './label-response.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';

type OpContext<Op extends keyof operations> = Context<
  unknown,
  operations[Op]['parameters']['path'],
  NonNullable<operations[Op]['parameters']['query']>
>;
export type OpHandler<Op extends keyof operations> = (c: OpContext<Op>, req: Request, res: Response) => Promise<void>;

export interface HandlerDeps {
  records: RecordStore;
  content: ContentOptions;
  respond: LabelResponder;
}

export function labelHandlers({ records, content, respond }: HandlerDeps): {
  getLocationLabel: OpHandler<'getLocationLabel'>;
  getItemLabel: OpHandler<'getItemLabel'>;
  getAssetLabel: OpHandler<'getAssetLabel'>;
} {
  /** Names of the locations above a record, top first ("Garage", "Shelf 3"). */
  const pathAbove = (record: InventoryRecord) => (record.parentId ? records.locationPath(record.parentId) : Promise.resolve([]));
  // The three label operations share their query parameters (print, template).
  const send = (c: OpContext<'getItemLabel'>, req: Request, res: Response, label: Label) =>
    respond(req, res, label, { print: c.request.query.print === true, template: c.request.query.template });

  return {
    async getLocationLabel(c, req, res) {
      const { id } = c.request.params;
      const location = await records.getLocation(id);
      if (!location) throw new HttpProblem('not-found', `No location has the id ${id}.`);
      const path = await pathAbove(location);
      const label = locationLabel(location, path, content);
      await send(c, req, res, { content: label, fields: { kind: 'location', id, name: location.name, url: label.qrUrl } });
    },

    async getItemLabel(c, req, res) {
      const { id } = c.request.params;
      const item = await records.getItem(id);
      if (!item) throw new HttpProblem('not-found', `No item has the id ${id}.`);
      const path = await pathAbove(item);
      const label = itemLabel(item, path, content);
      await send(c, req, res, { content: label, fields: { kind: 'item', id, name: item.name, url: label.qrUrl } });
    },

    async getAssetLabel(c, req, res) {
      const { id } = c.request.params;
      const assetId = parseAssetId(id);
      if (assetId === undefined) {
        if (/^[0-]+$/.test(id)) throw new HttpProblem('not-found', `No asset has the id ${id}: asset 0 does not exist.`);
        throw new HttpProblem('invalid-request', `Asset id ${id} has more than 12 digits.`);
      }
      const item = await records.getItemByAssetId(assetId);
      if (!item) throw new HttpProblem('not-found', `No asset has the id ${id}.`);
      const path = await pathAbove(item);
      const label = assetLabel(item, assetId, path, content);
      await send(c, req, res, { content: label, fields: { kind: 'asset', id: item.id, name: item.name, assetId: label.title, url: label.qrUrl } });
    },
  };
}

/** The print job as the spec shows it (no token, key or document). */
export function printJobHandlers(queue: PrintQueue | undefined): { getPrintJob: OpHandler<'getPrintJob'> } {
  return {
    async getPrintJob(c, _req, res) {
      const { jobId } = c.request.params;
      const job = await queue?.get(jobId);
      // A job is visible to the token that created it only; to others it does not exist.
      if (!job || job.tokenId !== tokenOf(res).id) throw new HttpProblem('not-found', `No print job has the id ${jobId}.`);
      const body: PrintJobBody = {
        id: job.id,
        state: job.state,
        printer: job.printer,
        template: job.template,
        title: job.title,
        attempts: job.attempts,
        maxAttempts: job.maxAttempts,
        lastError: job.lastError,
        createdAt: job.createdAt,
        updatedAt: job.updatedAt,
        nextAttemptAt: job.nextAttemptAt,
        printedAt: job.printedAt,
        possibleDuplicate: job.possibleDuplicate,
      };
      sendJson(res, 200, body);
    },
  };
}

type PrintJobBody = components['schemas']['PrintJob'];
