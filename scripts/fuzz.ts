/**
 * `npm run fuzz -- --base-url http://127.0.0.1:8080 --token lm_... [--seed 1] [--count 10000]`:
 * the spec-driven request fuzzer (test/fuzz/request-fuzzer.ts) against any running
 * server or mock. Prints the figures; exits 1 on any 5xx, undocumented response or
 * request without an answer. Ids of existing records make more requests succeed:
 * `--location ID --item ID --asset 000-001` (each may repeat).
 */
import { parseArgs } from 'node:util';
import { fuzz, summary } from '../test/fuzz/request-fuzzer.js';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    token: { type: 'string', default: process.env.LABELMAKER_TOKEN },
    seed: { type: 'string', default: '20261123' },
    count: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    location: { type: 'string', multiple: true, default: [] },
    item: { type: 'string', multiple: true, default: [] },
    asset: { type: 'string', multiple: true, default: [] },
  },
});
if (!values['base-url'] || !values.token) {
  console.error('usage: npm run fuzz -- --base-url URL --token TOKEN [--seed N] [--count N] [--location ID] [--item ID] [--asset ID]');
  process.exit(2);
}
const report = await fuzz({
  baseUrl: values['base-url'],
  token: values.token,
  seed: Number(values.seed),
  count: Number(values.count),
  concurrency: Number(values.concurrency),
  known: { location: values.location, item: values.item, asset: values.asset },
});
console.log(summary(report));
for (const f of [...report.serverErrors, ...report.undocumented, ...report.transportErrors].slice(0, 20)) console.log(`  ${f.status ?? '---'} ${f.request}\n      ${f.problem}`);
process.exit(report.serverErrors.length + report.undocumented.length + report.transportErrors.length > 0 ? 1 : 0);
