/**
 * The printer fleet's operations (listPrinters, getPrinter, putPrinter, deletePrinter).
 * Thin: the rules are printing's (fleet.ts: settings a printer must hold, its errors),
 * conditional writes and the default's move the store's. The spec router has checked
 * the name, the headers' form and the body's schema.
 */
import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { InvalidPrinterError, PrinterFromConfigError, PrinterHasJobsError, printerProblems, readPrinterStatus, unknownPrinterStatus, type PrinterChecks, type PrinterDrivers, type PrinterStatus } from '../printing/index.js';
import type { PrinterSettings, PrinterStore, SavedPrinter } from '../records/index.js';
import type { LabelService } from './label-service.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';
import { ifMatchHolds, optionalPreconditionOf } from './templates.js';

export const PRINTERS_PATH = '/v1/labelmaker/printers';

type PrinterBody = components['schemas']['Printer'];

export interface PrinterHandlerDeps extends PrinterChecks {
  printers: PrinterStore;
  /** Looks again at a printer's held jobs after its settings or status changed (printing's; absent without a printer). */
  reevaluateHolds?: (printerName: string) => Promise<number>;
  /** The fleet's drivers, shared with the dispatcher and the status poller (refreshPrinterStatus reads through them). */
  drivers: PrinterDrivers;
  /** Which printer for a label (listPrinters with `kind`/`id`/`template`): the label service's, the rules printing's. */
  labels: Pick<LabelService, 'printersFor'>;
}

export function printerHandlers({ printers, drivers, reevaluateHolds, labels, ...checks }: PrinterHandlerDeps): Pick<Handlers, 'listPrinters' | 'getPrinter' | 'putPrinter' | 'deletePrinter' | 'refreshPrinterStatus'> {
  const notFound = (name: string) => new HttpProblem('not-found', `No printer is named ${name}.`);
  const changed = (name: string, etag: string) =>
    new HttpProblem('precondition-failed', `The printer ${name} changed since your If-Match (its ETag is now ${etag}); read it again and reapply your change.`);
  /** Only printers:admin sees device URIs (they may carry a printer's password). */
  const isAdmin = (res: Response) => tokenOf(res).scopes.includes('printers:admin');

  return {
    async listPrinters(c, _req, res) {
      const admin = isAdmin(res);
      const { kind, id, template } = c.request.query;
      if ((kind === undefined) !== (id === undefined)) throw new HttpProblem('invalid-request', 'query parameters kind and id: name a label\'s record with both (or neither).');
      if (kind === undefined && template === undefined) {
        res.set('Cache-Control', 'no-store');
        sendJson(res, 200, { printers: (await printers.list()).map((p) => printerResource(p, admin)) });
        return;
      }
      // A label named: the same routing and hold rules a print of it meets (printing/assign.ts).
      const advice = await labels.printersFor({ find: kind !== undefined && id !== undefined ? { kind, id } : undefined, template });
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, {
        stock: advice.stock,
        ...(advice.suggested !== undefined ? { suggested: advice.suggested } : {}),
        printers: advice.printers.map(({ printer, heldReason }) => ({ ...printerResource(printer, admin), canPrint: heldReason === null, holdReason: heldReason })),
      });
    },

    async getPrinter(c, _req, res) {
      const saved = await printers.get(c.request.params.name);
      if (!saved) throw notFound(c.request.params.name);
      // The ETag is the settings' (what If-Match guards); the status changes without it, so nothing is cached.
      res.set({ ETag: saved.etag, 'Cache-Control': 'no-store' });
      sendJson(res, 200, printerResource(saved, isAdmin(res)));
    },

    async refreshPrinterStatus(c, _req, res) {
      const { name } = c.request.params;
      const saved = await printers.get(name);
      if (!saved) throw notFound(name);
      if (saved.agent) {
        // The service cannot reach an agent's printer: its status is what the agent last reported.
        res.set({ ETag: saved.etag, 'Cache-Control': 'no-store' });
        sendJson(res, 200, printerResource(saved, isAdmin(res)));
        return;
      }
      // Bounded (STATUS_TIMEOUT_MS) and never throws; a client that goes away stops the read.
      const gone = new AbortController();
      const onClose = () => gone.abort();
      // The response closing before it was sent: the client went away.
      res.once('close', onClose);
      let status: PrinterStatus;
      try {
        status = await readPrinterStatus(drivers.driverFor(saved), gone.signal);
      } catch (err) {
        // driverFor throws only for a URI no driver takes.
        status = unknownPrinterStatus((err as Error).message);
      } finally {
        res.off('close', onClose);
      }
      // false: deleted meanwhile (404), or a newer reading was stored meanwhile (that one stands: answer it).
      if (await printers.saveStatus(name, status)) await reevaluateHolds?.(name); // a roll changed, the printer back: its jobs may go
      const now = await printers.get(name);
      if (!now) throw notFound(name);
      res.set({ ETag: now.etag, 'Cache-Control': 'no-store' });
      sendJson(res, 200, printerResource(now, isAdmin(res)));
    },

    async putPrinter(c, req, res) {
      const { name } = c.request.params;
      const condition = optionalPreconditionOf(c.request.headers);
      const current = await printers.get(name);
      if (current?.source === 'config') throw new PrinterFromConfigError(name);
      if (condition && 'create' in condition && current) throw new HttpProblem('precondition-failed', `A printer named ${name} already exists; read it and replace it with If-Match.`);
      if (condition && 'ifMatch' in condition) {
        if (!current) throw new HttpProblem('precondition-failed', `No printer named ${name} exists (it may have been deleted); create it with If-None-Match: *.`);
        if (!ifMatchHolds(condition.ifMatch, current.etag)) throw changed(name, current.etag);
      }
      const body = c.request.requestBody;
      const settings: PrinterSettings = {
        name,
        title: body.title,
        deviceUri: body.deviceUri,
        model: body.model ?? null,
        locationId: body.locationId ?? null,
        stocks: body.stocks ?? [],
        red: body.red ?? false,
        isDefault: body.default ?? false,
        source: 'api',
        agent: body.agent ?? null,
      };
      const problems = await printerProblems(settings, checks);
      if (problems.length > 0) throw new InvalidPrinterError(problems);
      // The store checks again in the write: a change (or a printer from the configuration) since the read loses.
      const saved = await printers.put(settings, current ? current.etag : null);
      if (!saved) throw new HttpProblem('precondition-failed', `The printer ${name} changed while yours was saved; read it again.`);
      // New stocks or red may hold or release its queued jobs.
      await reevaluateHolds?.(name);
      res.set({ ETag: saved.etag, 'Cache-Control': 'no-store', ...(current ? {} : { Location: `${PRINTERS_PATH}/${name}` }) });
      sendJson(res, current ? 200 : 201, printerResource(saved, true));
    },

    async deletePrinter(c, req, res) {
      const { name } = c.request.params;
      const ifMatch = req.get('If-Match')?.trim();
      const current = await printers.get(name);
      if (!current) throw notFound(name);
      if (current.source === 'config') throw new PrinterFromConfigError(name);
      if (ifMatch && !ifMatchHolds(ifMatch, current.etag)) throw changed(name, current.etag);
      switch (await printers.delete(name, current.etag)) {
        case 'deleted':
          res.status(204).end();
          return;
        case 'has-jobs':
          throw new PrinterHasJobsError(name, await printers.pendingJobs(name));
        case 'missing':
          throw notFound(name);
        case 'changed':
          throw new HttpProblem('precondition-failed', `The printer ${name} changed while it was being deleted; read it again.`);
      }
    },
  };
}

/** A printer as the API shows it: the device URI to printers:admin only, the status once it was read. */
export function printerResource(p: SavedPrinter, admin: boolean): PrinterBody {
  return {
    name: p.name,
    title: p.title,
    ...(admin ? { deviceUri: p.deviceUri } : {}),
    model: p.model,
    locationId: p.locationId,
    stocks: p.stocks,
    red: p.red,
    default: p.isDefault,
    source: p.source,
    ...(p.agent ? { agent: p.agent } : {}),
    ...(p.status ? { status: p.status as unknown as components['schemas']['PrinterStatus'] } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}
