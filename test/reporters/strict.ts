/**
 * A skipped or missing test is a failed run in CI: this reporter counts the
 * results, prints one "N passed, N failed, N skipped" line, and sets a failing
 * exit code when CI is set and anything was skipped or nothing ran.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class StrictReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    const skipped: string[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        counts[state] += 1;
        if (state === 'skipped' || state === 'pending') skipped.push(test.fullName);
      }
    }
    const total = counts.passed + counts.failed + counts.skipped + counts.pending;
    console.log(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped + counts.pending} skipped`);
    if (skipped.length > 0) {
      console.log(`!! ${skipped.length} test(s) SKIPPED:\n  ${skipped.slice(0, 50).join('\n  ')}`);
    }
    if (process.env.CI && (skipped.length > 0 || total === 0)) {
      console.log(total === 0 ? '!! CI: no test ran: failing the run.' : '!! CI: skipped tests count as failures: failing the run.');
      process.exitCode = 1;
    }
  }
}
