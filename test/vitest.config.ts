import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    passWithNoTests: false,
    // 'default' shows progress; the strict reporter fails a CI run that skipped anything.
    reporters: ['default', './test/reporters/strict.ts'],
  },
});
