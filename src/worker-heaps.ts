/**
 * Young generations per thread. `npm start` runs Node with --max-semi-space-size=4 for
 * the main thread (a smaller one costs cached labels CPU; docs/performance.md, Memory). V8 applies
 * that flag to every isolate created while it is set, over a Worker's own
 * resourceLimits: until 27 November the render threads and the SQLite writer each had
 * the main thread's 8 MB young generation whatever they asked for. Called once the main
 * thread's heap exists and before any worker starts, this clears the flag: the main heap
 * keeps the size it was made with, and each worker's resourceLimits decide its own.
 */
import v8 from 'node:v8';

export function leaveYoungGenerationsToWorkers(): void {
  v8.setFlagsFromString('--max-semi-space-size=0');
}
