/**
 * The published contract: /openapi.yaml, /openapi.json and an interactive API
 * reference at /docs (Swagger UI from the swagger-ui-dist package: it works
 * offline, with no CDN). Of that package only the two files the page loads are
 * served, with their licence: not its stock page (which loads a spec from a
 * public host), its package.json or its source maps.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Response, type Router } from 'express';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

/** /docs/assets/<name> -> media type: everything /docs needs, nothing else. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js.LICENSE.txt': 'text/plain; charset=utf-8',
};

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Labelmaker API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A separate file rather than an inline script, so the page works under a strict CSP.
// "Try it out" targets the server that served the page: it comes first in the server
// list (the spec's own entry, a placeholder deployment, stays second).
const INIT_JS = `fetch('/openapi.json')
  .then((res) => res.json())
  .then((spec) => {
    spec.servers = [{ url: window.location.origin, description: 'This server' }, ...(spec.servers || [])];
    window.ui = SwaggerUIBundle({ spec, dom_id: '#swagger-ui', deepLinking: true });
  });
`;

/**
 * The studio's policy (studio.ts) but for the inline styles Swagger UI sets: never
 * framed (no clickjacking of "Try it out" with a pasted token), no plugins, no <base>,
 * and no form that submits elsewhere.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  // Swagger UI's dialogs (Authorize) are forms that submit to this page itself.
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function docsRouter(specYaml: string, specJson: string): Router {
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(SWAGGER_UI_DIR, name)) }]));
  const send = (res: Response, type: string, body: string | Buffer) => {
    // setHeader: Express would add a charset to application/json, which defines none.
    res.setHeader('Content-Type', type);
    res.send(typeof body === 'string' ? Buffer.from(body) : body);
  };
  const router = express.Router();
  router.get('/openapi.yaml', (_req, res) => send(res, 'application/yaml', specYaml));
  router.get('/openapi.json', (_req, res) => send(res, 'application/json', specJson));
  router.get(['/docs', '/docs/'], (_req, res) => {
    // X-Frame-Options too, for browsers that predate frame-ancestors (as the studio's page).
    res.set({ 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-cache' });
    send(res, 'text/html; charset=utf-8', DOCS_HTML);
  });
  router.get('/docs/init.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', INIT_JS));
  router.get('/docs/assets/:name', (req, res, next) => {
    const asset = assets.get(req.params.name);
    if (!asset) return next();
    res.set('Cache-Control', 'public, max-age=86400');
    send(res, asset.type, asset.body);
  });
  return router;
}
