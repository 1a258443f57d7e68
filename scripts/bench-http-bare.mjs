// The baselines of bench-http.ts: the same PNG bytes from a bare node:http server
// ("node") or a bare express route ("express"). Prints "listening <port>" once ready.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import express from 'express';

const [mode, pngPath] = process.argv.slice(2);
const png = readFileSync(pngPath);
const headers = { 'Content-Type': 'image/png', 'Content-Length': String(png.length) };
let server;
if (mode === 'node') {
  server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(png);
  });
} else {
  const app = express();
  app.get('/label.png', (_req, res) => {
    res.set(headers).end(png);
  });
  server = createServer(app);
}
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
