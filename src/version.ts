/**
 * The release's one version (package.json's; the OpenAPI document's info.version and the
 * typed client's package carry the same number): what `labelmaker --version`, /healthz,
 * the labelmaker_build_info metric and every log line report. src/ and dist/ sit one
 * level below the project's root, so package.json is found the same way from both.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The installation's root folder (holds package.json, dist/, data/ by default). */
export const INSTALL_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const SERVICE_NAME = 'labelmaker';
