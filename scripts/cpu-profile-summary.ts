/**
 * Where the CPU went, from V8 .cpuprofile files (node --cpu-prof; bench:http
 * --cpu-prof DIR): self time grouped by package (node_modules/<name>), our
 * source file (dist/ or src/), Node's internals, GC and idle, as a share of
 * the busy (non-idle) time. Worker threads write profiles of their own.
 *   npx tsx scripts/cpu-profile-summary.ts DIR_OR_FILES... [--by function]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const byFunction = args.includes('--by') && args[args.indexOf('--by') + 1] === 'function';
const files = args
  .filter((a, i) => a !== '--by' && args[i - 1] !== '--by')
  .flatMap((a) => (statSync(a).isDirectory() ? readdirSync(a).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(a, f)) : [a]));

function group(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : `(native) ${fn}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/(?:dist|src)\/(.+?)\.(?:js|ts)$/.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/([^/]+).*/, 'node:$1');
  return url;
}

for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let idle = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    if (n.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    total += dt;
    const key = byFunction ? `${n.callFrame.functionName || '(anonymous)'} ${group(n.callFrame.url, n.callFrame.functionName)}:${n.callFrame.lineNumber + 1}` : group(n.callFrame.url, n.callFrame.functionName);
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  console.log(`\n${file}: busy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, byFunction ? 40 : 30)) {
    console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
}
