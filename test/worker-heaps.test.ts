/**
 * The main thread's --max-semi-space-size must not set the workers' young generations
 * (see src/worker-heaps.ts): measured in a child process started as `npm start` starts
 * the service.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const probe = (...args: string[]): { main: number; worker: number } =>
  JSON.parse(execFileSync(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', join(import.meta.dirname, 'helpers/young-generation-probe.ts'), ...args], { encoding: 'utf8' }));

describe('young generations', () => {
  it('the flag alone gives a worker the main thread\'s young generation, over its resourceLimits', () => {
    expect(probe()).toEqual({ main: 8, worker: 8 });
  });

  it('once cleared, each worker has the young generation it asks for; the main thread keeps its own', () => {
    // Usually exactly 2 MB (1 MB semi-spaces); once, on a CI machine busy with other
    // suites, 6.25 MB. What matters is that the main thread's flag no longer decides.
    const { main, worker } = probe('clear');
    expect(main).toBe(8);
    expect(worker).toBeLessThan(main);
  });
});
