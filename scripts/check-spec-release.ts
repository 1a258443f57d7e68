/**
 * `npm run check:breaking`: compares spec/openapi.yaml with the last released
 * version in spec/released/ and fails on breaking changes unless the major
 * version went up. Also checks that the version only moves forward and that the
 * changelog (in info.description) has an entry for it, and that the service's and
 * the client's packages carry the same version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { breakingChanges, compareVersions, major } from './lib/spec-diff.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const current = parse(readFileSync(`${ROOT}spec/openapi.yaml`, 'utf8'));
const releases = readdirSync(`${ROOT}spec/released`)
  .map((f) => /^openapi-(\d+\.\d+\.\d+)\.yaml$/.exec(f)?.[1])
  .filter((v): v is string => Boolean(v))
  .sort(compareVersions);
const last = releases.at(-1);
if (!last) throw new Error('no released spec in spec/released/');

const problems: string[] = [];
const version: string = current.info.version;
if (compareVersions(version, last) < 0) problems.push(`info.version ${version} is older than the last release ${last}`);
if (!new RegExp(`^### ${version.replace(/\./g, '\\.')}\\b`, 'm').test(current.info.description ?? '')) {
  problems.push(`the changelog in info.description has no "### ${version}" entry`);
}
// One release version: the service's package and the typed client's carry the spec's.
for (const file of ['package.json', 'scripts/client-package/package.json']) {
  const v = (JSON.parse(readFileSync(`${ROOT}${file}`, 'utf8')) as { version: string }).version;
  if (v !== version) problems.push(`${file} has version ${v}, the spec ${version}: a release has one version (docs/api-and-versions.md)`);
}
const released = parse(readFileSync(`${ROOT}spec/released/openapi-${last}.yaml`, 'utf8'));
const breaking = breakingChanges(released, current);
if (breaking.length > 0 && major(version) <= major(last)) {
  problems.push(`breaking changes since ${last} without a new major version:\n    ${breaking.join('\n    ')}`);
}
if (problems.length > 0) {
  console.error(`spec release check failed:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`spec ${version}: no breaking changes since release ${last}${breaking.length ? ` (${breaking.length} allowed by the major version)` : ''}`);
