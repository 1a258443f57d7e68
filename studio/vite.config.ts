/**
 * The label studio's build (`npm run build:studio` -> studio/dist/, served by the
 * service at `/`) and its dev server (`npm run studio:mock`: hot reload, /v1 proxied
 * to the Prism mock of `npm run mock` on MOCK_PORT, default 4010).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const mock = `http://127.0.0.1:${process.env.MOCK_PORT ?? '4010'}`;

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // No public/ folder: everything the page loads is in index.html's module graph.
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Served at /studio/<hashed name>: one folder, clear of the API's paths.
    assetsDir: 'studio',
    target: 'es2022',
    // The polyfill would be an extra script; every browser the studio supports has modulepreload.
    modulePreload: { polyfill: false },
    // Never inline assets as data: URLs into CSS/JS: the CSP and the size budget count files.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    host: '127.0.0.1',
    port: Number(process.env.STUDIO_PORT ?? 5173),
    strictPort: true,
    proxy: { '/v1': { target: mock, changeOrigin: true } },
  },
});
