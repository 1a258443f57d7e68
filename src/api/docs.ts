/**
 * The published contract: /openapi.yaml, /openapi.json and an interactive API
 * reference at /docs (Swagger UI from the swagger-ui-dist package, served from
 * node_modules: it works offline, with no CDN).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

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
const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });\n`;

const CSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

export function docsRouter(specYaml: string, specJson: string): Router {
  const router = express.Router();
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(specYaml);
  });
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(specJson);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.set('Content-Security-Policy', CSP).type('html').send(DOCS_HTML);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_JS);
  });
  router.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1d', fallthrough: true }));
  return router;
}
