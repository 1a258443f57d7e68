/**
 * Real Chromium (Debian's, installed by scripts/setup --test) driven by
 * playwright-core, with the flags this machine needs: no sandbox as root, and no
 * background networking (the machine has no network beyond loopback).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!CHROMIUM) throw new Error('Chromium is not installed: run scripts/setup --test');
  const profile = mkdtempSync(join(tmpdir(), 'lm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Serves one HTML page on its own loopback port: another origin than the API's. */
export async function servePage(html: string): Promise<{ url: string; origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/`, origin, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
