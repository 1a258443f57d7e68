/**
 * The label request clients repeat most (GET or HEAD of a location, asset or item
 * label, no query but `template`, not printing), answered without Express and
 * openapi-backend. Profiled with bench:http --cpu-prof, the middleware stack and
 * the spec router cost a cached label several times its own work (auth, store
 * lookup, key, cache); this lane does that work once and writes the answer.
 *
 * It answers only the plain success of such a request (200 or 304), with the same
 * headers, body, log line and metrics as the full stack: every other outcome
 * (no or bad credentials, a scope missing, an unknown record or template, an
 * unusual Accept, a spent budget, a failing store or render, a shutdown, a
 * time-out) is handed to the Express app, which answers it as always. Nothing with
 * a side effect happens before that hand-over except the rate-limit point, which
 * the app then reuses instead of counting twice (rate-limit.ts `precounted`).
 * test/api/label-fast-path.test.ts compares both lanes response for response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AccessLog } from '../config.js';
import { LABEL_KIND_FACTS, LABEL_KINDS, type LabelKind, type TokenStore } from '../records/index.js';
import { observeRequest } from '../metrics.js';
import { authenticate } from './auth.js';
import type { LabelCache } from './label-cache.js';
import type { LabelFor } from './label-records.js';
import { etagMatches, labelValidators, warningsHeader } from './label-response.js';
import { precounted, rateLimitHeaders, type RateLimiter } from './rate-limit.js';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id.js';
import { accessEntry, expire, logsAccess, SECURITY_HEADERS } from './app.js';
import type { TemplateResolver } from './templates.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface FastPathDeps {
  logger: Logger;
  tokens: TokenStore;
  rateLimiter: RateLimiter;
  labelFor: LabelFor;
  resolveTemplate: TemplateResolver;
  labels: LabelCache;
  defaultTemplateName: string;
  footer: string | undefined;
  /** The app's CORS middleware (cors.ts), run on the raw request as Connect middleware. */
  cors: RequestHandler;
  draining: () => boolean;
  requestTimeoutMs: number;
  /** ACCESS_LOG: this lane answers only successes, so with `errors` it writes no line. */
  accessLog: AccessLog;
}

/**
 * The spec's label paths with ids that need no decoding (RecordId's characters) and
 * at most a `template` (TemplateName's); anything else takes the full stack. An id
 * the kind does not accept (a malformed asset id) makes labelFor throw: handed over.
 */
const KIND_OF_SEGMENT = new Map(LABEL_KINDS.map((kind) => [LABEL_KIND_FACTS[kind].pathSegment, kind]));
const LABEL_URL = new RegExp(`^/v1/labelmaker/(${[...KIND_OF_SEGMENT.keys()].join('|')})/([A-Za-z0-9._~-]{1,64})(?:\\?template=([a-z0-9][a-z0-9._-]{0,63}))?$`);
/** Accept headers that surely admit image/png: no parameters (so no q=0) and a range covering it. */
const ACCEPTS_PNG = /^[^;]*(?:\*\/\*|image\/\*|image\/png)[^;]*$/;

/** A listener for node:http: the lane for plain label requests, the app for everything else. */
export function withLabelFastPath(app: Listener, deps: FastPathDeps): Listener & { answered(): number } {
  const lane: Lane = { ...deps, app, corsHeaders: corsByOrigin(deps.cors), answered: 0 };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    const m = (req.method === 'GET' || req.method === 'HEAD') && url.length <= 200 ? LABEL_URL.exec(url) : null;
    const accept = req.headers.accept;
    if (!m || (accept !== undefined && !ACCEPTS_PNG.test(accept)) || deps.draining()) return app(req, res);
    void answer(req, res, KIND_OF_SEGMENT.get(m[1]!)!, m[2]!, m[3], lane);
  };
  return Object.assign(listener, { answered: () => lane.answered });
}

interface Lane extends FastPathDeps {
  app: Listener;
  corsHeaders(req: IncomingMessage): Readonly<Record<string, string>>;
  /** Requests this lane answered itself (tests check that it does). */
  answered: number;
}

async function answer(req: IncomingMessage, res: ServerResponse, kind: LabelKind, id: string, templateName: string | undefined, lane: Lane): Promise<void> {
  const start = process.hrtime.bigint();
  let handedOver = false;
  const handOver = () => {
    if (handedOver) return;
    handedOver = true;
    res.removeListener('timeout', onTimeout);
    lane.app(req, res);
  };
  // Past the time-out the app answers its 503 at once (app.ts `expire`).
  const onTimeout = () => {
    expire(req);
    handOver();
  };
  res.setTimeout(lane.requestTimeoutMs, onTimeout);
  try {
    const token = await authenticate(req.headers.authorization, lane.tokens).catch(() => undefined);
    // labels:read is an API scope, so this also keeps integration keys out (router.ts).
    if (!token || !token.scopes.includes('labels:read') || handedOver) return handOver();
    const found = await lane.labelFor(kind, id).catch(() => undefined);
    if (!found || handedOver) return handOver();
    const template = await lane.resolveTemplate(templateName ?? lane.defaultTemplateName).catch(() => undefined);
    if (!template || handedOver) return handOver();
    const key = lane.labels.keyOf(found.record, template, lane.footer);

    // The budget is spent now, as the app would spend it before drawing; if anything
    // below hands over, the app reuses this count (and answers a spent budget's 429).
    const counted = lane.rateLimiter.limiter.consume(`token:${token.id}`);
    precounted.set(req, counted);
    const budget = await counted.catch(() => undefined);
    if (!budget || handedOver) return handOver();

    const headers: Record<string, string> = {
      [REQUEST_ID_HEADER]: requestIdFrom(req.headers['x-request-id']),
      ...SECURITY_HEADERS,
      ...lane.corsHeaders(req),
      ...rateLimitHeaders(lane.rateLimiter.limit, budget),
      ...labelValidators(found.record, key),
    };
    let status = 304;
    let body: Buffer | undefined;
    if (!etagMatches(req.headers['if-none-match'], headers.ETag!)) {
      const label = await lane.labels.get(key, found.record, template, lane.footer).catch(() => undefined);
      if (!label || handedOver) return handOver();
      const warning = warningsHeader(label.warnings, label.missingGlyphs);
      if (warning) headers['Label-Warnings'] = warning;
      headers['Content-Type'] = 'image/png';
      headers['Content-Length'] = String(label.png.length);
      status = 200;
      body = label.png;
    }
    precounted.delete(req);
    res.removeListener('timeout', onTimeout);
    // One writeHead with every header: setHeader one by one cost more than the rest of a cached answer (measured).
    res.writeHead(status, headers);
    lane.answered++;
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      observeRequest(LABEL_KIND_FACTS[kind].operationId, res.statusCode, seconds);
      if (!logsAccess(lane.accessLog, res.statusCode)) return;
      // The app's access log line (app.ts), the request id first as the app's child logger writes it.
      lane.logger.info({ reqId: headers[REQUEST_ID_HEADER], ...accessEntry(req.method ?? 'GET', req.url ?? '', res.statusCode, seconds * 1e3, token.id) }, 'request');
    });
    res.end(body); // HEAD and 304: Node sends no body
  } catch {
    if (!res.headersSent) handOver(); // a bug here must not lose the request: the app answers it
  }
}

/**
 * The CORS headers of an answer, by the request's Origin: the cors middleware run once
 * per origin into a plain object (outside a preflight it only sets headers: Vary,
 * Access-Control-*), then kept. Bounded: a flood of made-up origins starts it afresh.
 */
function corsByOrigin(cors: RequestHandler): Lane['corsHeaders'] {
  const byOrigin = new Map<string, Record<string, string>>();
  return (req) => {
    const origin = req.headers.origin ?? '';
    let headers = byOrigin.get(origin);
    if (!headers) {
      headers = {};
      cors(req as never, headerCollector(headers) as never, () => {});
      if (byOrigin.size >= 256) byOrigin.clear();
      byOrigin.set(origin, headers);
    }
    return headers;
  };
}

/** Enough of a ServerResponse for the cors middleware: its headers land in `headers`. */
function headerCollector(headers: Record<string, string>) {
  return {
    getHeader: (name: string) => headers[name],
    setHeader(name: string, value: string | string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
