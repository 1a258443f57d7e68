import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Lanes as vitest projects. `fast` is the inner loop (npm run test:fast): unit
 * tests and contract tests against an in-process server, no child services, no
 * ippeveprinter, Chromium or kill trials, no fuzzing. `slow` is every other test file,
 * by construction (it excludes exactly what `fast` includes), so a plain `vitest run`
 * (npm test, npm run test:unit, CI) runs every file exactly once. A new test file
 * lands in `slow` until it is listed here. The fast lane runs a file per core (vitest's
 * default leaves one core to its own process, which on 2 cores means one file at a time);
 * the slow lane keeps the default, as its tests time services and printers.
 */
const FAST = [
  'test/api/*.test.ts',
  'test/contract/{client,failures,labels,mock.contract,parity,records,server.contract,spec-document}.test.ts',
  'test/docs/*.test.ts',
  'test/fuzz/request-fuzzer.test.ts', // the fuzzer's oracle on hand-made responses; the fuzzing itself is slow
  'test/homebox-grocy/units.test.ts',
  'test/labels/{cmap,datamatrix,fonts,golden,png,qr,release,render,symbols,text}.test.ts', // sheet-pdf scans every sheet product's codes: slow
  'test/printing/{brother-ql,command,device-uri,directory,mono-png,pwg-raster,status-parsers,upkeep,worker,zpl}.test.ts',
  'test/records/{asset-id,demo,health,import-read,import,index,kinds,last-use,migrations,postgres-store,record-search,rows,sqlite-store,text-rules,tokens}.test.ts',
  'test/scripts/*.test.ts',
  'test/studio/{canvas-math,png}.test.ts',
];

/**
 * The README's two commands on a bare Debian (apt, npm and a canvas build from nothing): alone,
 * after every other file, so its download and compile neither slow the timed tests nor are
 * slowed by them (beside them it ran past its 15 minutes; alone it takes under 2 minutes).
 */
const LAST = ['test/container/bare-debian.test.ts'];

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    passWithNoTests: false,
    // 'default' shows progress; the strict reporter fails a CI run that skipped anything.
    reporters: ['default', './test/reporters/strict.ts'],
    projects: [
      // Projects with different maxWorkers run one after the other, in groupOrder.
      { extends: true, test: { name: 'fast', include: FAST, maxWorkers: availableParallelism(), sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'slow', include: ['test/**/*.test.ts'], exclude: [...FAST, ...LAST], sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'last', include: LAST, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
