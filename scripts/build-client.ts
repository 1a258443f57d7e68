/**
 * `npm run build:client`: the typed client as its own package (scripts/client-package/), so other
 * projects install it without the service and its native modules. Compiles
 * src/client.ts with declarations, and copies the generated API types its
 * declarations import.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}scripts/client-package/dist`, { recursive: true, force: true });
execFileSync(`${root}node_modules/.bin/tsc`, ['-p', 'scripts/client-package/tsconfig.json'], { cwd: root, stdio: 'inherit' });
mkdirSync(`${root}scripts/client-package/dist/generated`, { recursive: true });
copyFileSync(`${root}generated/openapi.d.ts`, `${root}scripts/client-package/dist/generated/openapi.d.ts`);
console.log('built scripts/client-package/dist (npm pack ./scripts/client-package makes the tarball)');
