/**
 * Rendering in worker threads: byte for byte what the engine draws on the
 * calling thread (fonts load in the workers, every script included), the
 * client's error for a stock too small, a pool that outlives renders that
 * throw and workers that die, and text drawn on several threads at once.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInTemplate, LabelFitError, renderLabel, type Template } from '../../src/labels/index.js';
import { poolRenderer, profilingArgs } from '../../src/labels/render-pool.js';
import { BASIC, FOOTER, HOSTILE, ITEM } from './samples.js';

const pool = poolRenderer(2);
afterAll(() => pool.close());

const TEMPLATES = ['brother-ql-62x29', 'brother-ql-29x90', 'dymo-30252', 'brother-ql-23x23'].map((n) => builtInTemplate(n)!);

describe('poolRenderer', () => {
  it('draws byte-identical PNGs to the in-thread engine, with the same warnings', async () => {
    const records = [...BASIC, ...HOSTILE.map((h) => h.record)];
    let compared = 0;
    for (const template of TEMPLATES.filter(Boolean)) {
      const jobs = records.map(async (record) => {
        let local;
        try {
          local = renderLabel(record, template, { footer: FOOTER });
        } catch (err) {
          await expect(pool.render(record, template, { footer: FOOTER })).rejects.toThrow(LabelFitError);
          expect(err).toBeInstanceOf(LabelFitError);
          return;
        }
        const pooled = await pool.render(record, template, { footer: FOOTER });
        expect(pooled.png.equals(local.png), `${template.name} ${record.name}`).toBe(true);
        expect(pooled.warnings).toEqual(local.warnings);
        expect(pooled.missingGlyphs).toEqual(local.missingGlyphs);
        compared++;
      });
      await Promise.all(jobs);
    }
    expect(compared).toBeGreaterThan(20);
    expect(pool.workers().length).toBe(2);
  });

  it('gives a render error to its caller and keeps rendering', async () => {
    const broken = { ...builtInTemplate('brother-ql-62x29')!, stock: null } as unknown as Template;
    await expect(pool.render(ITEM, broken)).rejects.toThrow();
    const ok = await pool.render(ITEM, builtInTemplate('brother-ql-62x29')!);
    expect(ok.png.equals(renderLabel(ITEM, builtInTemplate('brother-ql-62x29')!).png)).toBe(true);
  });

  // Workers are killed only in a process of their own (test/helpers/pool-kill.ts): found in CI,
  // a kill mid-render can abort the whole process, and in this one it skipped the tests after it.
  // Twice so: node-canvas throwing into a thread being stopped ("FATAL ERROR:
  // Error::ThrowAsJavaScriptException napi_throw", fixed by the define scripts/setup builds it
  // with), and a worker killed while it loaded left the pool without workers, its renders waiting
  // forever (fixed in render-pool.ts). Once, Node itself: a thread stopped between creating a
  // zlib stream and initialising it (PNG encoding) fails Node's own check at teardown
  // ("CompressionStream ... Close(): Assertion failed: init_done_ && \"close before init\""),
  // an upstream race no code of ours can reach; a run that ends that way is run once more with
  // another seed, and said so. 80 kills at random moments, mostly mid-render, aborted 3 runs in 4
  // and hung every one before the fixes.
  const NODE_ZLIB_TEARDOWN = /close before init/;
  it('survives worker threads killed at 80 random moments: every render settles, the process lives, the pool draws again (own process)', () => {
    const script = fileURLToPath(new URL('../helpers/pool-kill.ts', import.meta.url));
    let reruns = 0;
    for (let seed of [20261124, 7]) {
      let run = spawnSync(process.execPath, ['--import', 'tsx', script, '40', String(seed)], { encoding: 'utf8', timeout: 140_000 });
      if (run.signal === 'SIGABRT' && NODE_ZLIB_TEARDOWN.test(run.stderr) && reruns++ === 0) {
        console.warn(`!! pool-kill seed ${seed}: Node's zlib teardown assertion (an upstream race, see above); running once more with seed ${seed + 1}`);
        seed += 1;
        run = spawnSync(process.execPath, ['--import', 'tsx', script, '40', String(seed)], { encoding: 'utf8', timeout: 140_000 });
      }
      expect(run.signal, `seed ${seed}: ${run.stderr}`).toBeNull();
      expect(run.status, `seed ${seed}: ${run.stderr}`).toBe(0);
      expect(run.stdout.trim()).toMatch(/^ok 40 rendered=\d+ failed=\d+ \(worker exits \d+, engine restarting \d+\)$/);
      console.log(`pool-kill seed ${seed}: ${run.stdout.trim()}`);
    }
  }, 420_000);

  // Found in CI: a service crashed at start ("malloc(): unaligned tcache chunk")
  // when its workers registered fonts while another thread drew. 30 rounds of
  // pools starting while the main thread draws crashed the old code 3 times in 4.
  it('starts and stops pools while the main thread draws without corrupting the process (30 rounds, own process)', () => {
    const script = fileURLToPath(new URL('../helpers/pool-churn.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, '30'], { encoding: 'utf8', timeout: 280_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('ok 30');
  }, 300_000);

  // Found in CI: this file's process died (SIGSEGV in cairo, all its tests reported skipped) while
  // its main thread and the pool drew the hostile samples in the first test: cairo closes a
  // FreeType face another thread is drawing with (src/labels/font-lock.ts). Without the font lock
  // this crashed 9 runs in 10 on a busy 2-core machine, 11-27 s in; render threads alone crash too.
  it('draws labels in every script on the main thread and three render threads at once without crashing (30 s, own process)', () => {
    const script = fileURLToPath(new URL('../helpers/font-churn.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, '3', '30'], { encoding: 'utf8', timeout: 180_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^ok pool=[1-9]\d* main=[1-9]\d*$/);
  }, 200_000);

  it('passes only the CPU-profiling flags on to its threads', () => {
    expect(profilingArgs(['--max-semi-space-size=4', '--cpu-prof', '--cpu-prof-dir', '/p', '--cpu-prof-interval=500', '--heapsnapshot-signal=SIGUSR2'])).toEqual(['--cpu-prof', '--cpu-prof-dir', '/p', '--cpu-prof-interval=500']);
    expect(profilingArgs(['--max-semi-space-size=4'])).toEqual([]);
  });

  // bench:http --cpu-prof: where a distinct label's time goes is mostly in the render threads.
  it('profiles its render threads when the process is profiled (--cpu-prof)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lm-prof-'));
    try {
      const pool = fileURLToPath(new URL('../../src/labels/render-pool.ts', import.meta.url));
      const script = `const { poolRenderer } = await import(${JSON.stringify(pool)});
        const { builtInTemplate } = await import(${JSON.stringify(pool.replace('render-pool.ts', 'design.ts'))});
        const p = poolRenderer(2);
        const t = builtInTemplate('brother-ql-62x29');
        await Promise.all([0, 1, 2, 3].map((i) => p.render({ kind: 'item', id: 'p' + i, name: 'Profiled ' + i, path: [], url: 'https://x.test/p' + i }, t)));
        await p.close();
        console.log('ok');`;
      const run = spawnSync(process.execPath, ['--max-semi-space-size=4', '--cpu-prof', '--cpu-prof-dir', dir, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('ok');
      const profiles = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
      // The main thread's, and at least one render thread's with the engine's drawing in it.
      expect(profiles.length).toBeGreaterThanOrEqual(2);
      expect(profiles.some((p) => p.includes('"functionName":"renderLabel"'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
