// Cluster mode for bench-http.ts (--cluster N): N copies of the built service
// (dist/main.js) sharing one port through node:cluster, each drawing labels on
// its own event loop (RENDER_THREADS=0 unless set), to compare with the worker
// pool. Not a supported way to run the service: see docs/performance.md.
import cluster from 'node:cluster';

const n = Number(process.env.BENCH_CLUSTER_WORKERS ?? 2);
if (cluster.isPrimary) {
  for (let i = 0; i < n; i++) cluster.fork();
  let stopping = false;
  process.on('SIGTERM', () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  });
  cluster.on('exit', () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    if (!stopping) process.exit(1);
  });
} else {
  await import('../dist/main.js');
}
