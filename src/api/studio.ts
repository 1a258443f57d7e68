/**
 * The label studio (studio/, built by `npm run build:studio` into studio/dist/):
 * its page at `/` and its hashed files at `/studio/<name>`, same origin as the API,
 * under a strict Content-Security-Policy (nothing inline, nothing from elsewhere,
 * never framed). Files are read per request, so a rebuilt studio is served without
 * a restart; only names the build makes are looked up.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import express, { type Response, type Router } from 'express';
import { sendProblem } from './problems.js';

/** studio/dist from src/api/ (tsx) and from dist/api/ (compiled) alike. */
const DIST = fileURLToPath(new URL('../../studio/dist/', import.meta.url));

export const STUDIO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // The label preview is a blob: URL of the PNG the API sent; the favicon is an empty data: URL.
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;

export function studioRouter(dist = DIST): Router {
  const router = express.Router();
  const missing = (res: Response) =>
    sendProblem(res, 'not-found', 'The label studio is not built on this server: run `npm run build:studio` (npm start does it).');
  router.get('/', async (_req, res) => {
    const html = await readFile(`${dist}index.html`).catch(() => null);
    if (!html) return missing(res);
    res.set({ 'Content-Security-Policy': STUDIO_CSP, 'Cache-Control': 'no-cache', 'X-Frame-Options': 'DENY', 'Content-Type': 'text/html; charset=utf-8' });
    res.send(html);
  });
  router.get('/studio/:name', async (req, res, next) => {
    const name = req.params.name;
    if (!ASSET_NAME.test(name)) return next();
    const body = await readFile(`${dist}studio/${name}`).catch(() => null);
    if (!body) return next();
    // Names carry a hash of the content: a new build has new names.
    res.set({ 'Cache-Control': 'public, max-age=31536000, immutable', 'Content-Type': TYPES[name.slice(name.lastIndexOf('.'))]! });
    res.send(body);
  });
  return router;
}
