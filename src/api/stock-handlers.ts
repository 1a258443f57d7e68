/**
 * listStocks: every label stock the engine draws for (src/labels/stock.ts), as the
 * spec's Stock. The table changes only with a release, so the answer is made once:
 * its ETag is a hash of its bytes (equal on every instance of one release), and a
 * client may keep it for an hour, then revalidate for a 304.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { paperDots, STOCKS, type Stock } from '../labels/index.js';
import { etagMatches } from './label-response.js';
import type { Handlers } from './operations.js';

type StockBody = components['schemas']['Stock'];

/** Cache-Control of the list (the spec's StockCacheControl). */
export const STOCKS_CACHE_CONTROL = 'private, max-age=3600';

export function stockHandlers(): Pick<Handlers, 'listStocks'> {
  const body = Buffer.from(JSON.stringify({ stocks: STOCKS.map(stockBody) } satisfies components['schemas']['StockList']));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return {
    async listStocks(_c, req, res) {
      res.set({ ETag: etag, 'Cache-Control': STOCKS_CACHE_CONTROL });
      if (etagMatches(req.get('If-None-Match'), etag)) {
        res.status(304).end();
        return;
      }
      // setHeader, not res.type: Express would append `; charset=utf-8` (as sendJson avoids it).
      res.status(200).setHeader('Content-Type', 'application/json');
      res.set('Content-Length', String(body.length)).end(body);
    },
  };
}

/** Dots as millimetres, to 0.1 mm (as the studio shows a label's size). */
const mm = (dots: number, dpi: number) => Math.round((dots / dpi) * 254) / 10;

/** A stock as the spec shows it. */
export function stockBody(stock: Stock): StockBody {
  const edge = paperDots(stock);
  return {
    name: stock.name,
    title: stock.title,
    partNumbers: [...stock.aliases],
    kind: stock.lengthMm === null ? 'continuous' : 'die-cut',
    widthMm: stock.widthMm,
    lengthMm: stock.lengthMm,
    dpi: stock.dpi,
    printable: {
      widthDots: stock.widthDots,
      lengthDots: stock.lengthDots,
      minLengthDots: stock.minLengthDots,
      maxLengthDots: stock.maxLengthDots,
      widthMm: mm(stock.widthDots, stock.dpi),
      lengthMm: stock.lengthDots === null ? null : mm(stock.lengthDots, stock.dpi),
      edgeMm: { across: mm(edge.across, stock.dpi), along: mm(edge.along, stock.dpi) },
    },
    designTurned: stock.orientation === 'rotated',
    colours: [...stock.colours],
  };
}
