// New-connection probe for bench-http.ts, in its own process so the load
// generator's busy event loop does not add to what it measures: every
// <interval> ms a fresh TCP connection asks <url> once; prints the times from
// connect start to the response's headers (ms) as JSON when <seconds> are over.
import { request } from 'node:http';

const [url, intervalMs, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const times = [];
let failed = 0;
const pending = new Set();
const until = Date.now() + seconds * 1000;
const probe = () =>
  new Promise((resolve) => {
    const start = performance.now();
    const req = request(url, { agent: false, headers: { Connection: 'close' } }, (res) => {
      times.push(performance.now() - start);
      res.resume();
      resolve();
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      failed++;
      resolve();
    });
    req.end();
  });
while (Date.now() < until) {
  const p = probe();
  pending.add(p);
  void p.then(() => pending.delete(p));
  await new Promise((r) => setTimeout(r, intervalMs));
}
await Promise.all(pending);
console.log(JSON.stringify({ times, failed }));
