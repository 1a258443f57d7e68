/**
 * The label studio in real Chromium: a tab that records every request it makes
 * and every console error (CSP violations are reported there), axe-core run
 * inside the page, and the studio built from its sources when they changed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function buildStudio(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs', '--studio'], { cwd: ROOT, stdio: 'inherit' });
}

export interface StudioTab {
  page: Page;
  requests: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function openStudio(context: BrowserContext, url: string, viewport = { width: 1280, height: 900 }): Promise<StudioTab> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(url);
  return { page, requests, consoleErrors, close: () => page.close() };
}

/** Requests to anywhere but the page's own origin (blob: and data: URLs stay in the page). */
export function foreignRequests(requests: string[], origin: string): string[] {
  return requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'));
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, not a <script>: the page's CSP stays as served.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('API token').fill(token);
  await page.getByLabel('API token').press('Enter');
  await page.locator('#studio').waitFor();
  // The studio fills its stock, printer and template lists after showing itself (aria-busy meanwhile).
  await page.locator('#studio:not([aria-busy])').waitFor();
}

export async function searchFor(page: Page, q: string): Promise<void> {
  await page.getByLabel('Name or asset id').fill(q);
  await page.getByLabel('Name or asset id').press('Enter');
  await page.locator('#results li').first().waitFor();
}
