/**
 * Import progress on a terminal: one self-updating line on stderr (cli-progress does
 * the redrawing, throttling and clearing), shown only when stderr is a terminal and
 * only once the import has run for PROGRESS_DELAY_MS: quick imports stay quiet, and
 * logs, pipes and CI output never get carriage returns or escape sequences.
 */
import cliProgress from 'cli-progress';
import type { ImportProgress } from './records/index.js';

/** Imports quicker than this show no progress line. */
export const PROGRESS_DELAY_MS = 2000;

export interface ProgressLine {
  update(progress: ImportProgress): void;
  /** Removes the line (if shown); call before printing the outcome. */
  stop(): void;
}

const QUIET: ProgressLine = { update: () => {}, stop: () => {} };

/** `label` must already be safe to print (see printable). `totalBytes`: the file's size, when known. */
export function importProgress(stream: NodeJS.WriteStream, label: string, totalBytes?: number): ProgressLine {
  if (!stream.isTTY) return QUIET;
  const started = Date.now();
  let latest: ImportProgress = { phase: 'reading', rows: 0, bytes: 0 };
  let bar: cliProgress.SingleBar | undefined;
  const total = totalBytes && totalBytes > 0 ? totalBytes : 0;

  const show = () => {
    bar = new cliProgress.SingleBar({
      stream,
      fps: 8,
      clearOnComplete: true,
      hideCursor: false, // a Ctrl-C must not leave the cursor hidden
      barsize: 24,
      format: (options, params) => describe(latest, label, total, params.value, Date.now() - started, bar ? cliProgress.Format.BarFormat(params.progress, options) : ''),
    });
    bar.start(Math.max(total, 1), Math.min(latest.bytes, Math.max(total, 1)));
  };
  const timer = setTimeout(show, PROGRESS_DELAY_MS);
  timer.unref();

  return {
    update: (progress) => {
      const changed = progress.phase !== latest.phase || progress.step !== latest.step;
      latest = { ...progress };
      // Checking and writing run long statements that keep the timers from firing: a
      // phase change shows the line itself once the delay is over, and redraws it at once.
      if (!bar && changed && Date.now() - started >= PROGRESS_DELAY_MS) show();
      bar?.update(Math.min(progress.bytes, Math.max(total, 1)));
      if (changed) bar?.render(); // redraws when the text changed, throttle or not
    },
    stop: () => {
      clearTimeout(timer);
      bar?.stop();
      bar = undefined;
    },
  };
}

function describe(p: ImportProgress, label: string, total: number, value: number, elapsedMs: number, barText: string): string {
  const rows = `${p.rows.toLocaleString('en-US')} rows`;
  switch (p.phase) {
    case 'waiting':
      return `${label}: waiting for another import to finish`;
    case 'checking':
      return `${label}: ${rows} read; checking${p.step ? ` (${p.step})` : ''}`;
    case 'writing':
      return `${label}: ${rows} read and checked; writing`;
    case 'reading': {
      const rate = elapsedMs > 0 ? Math.round((p.rows * 1000) / elapsedMs).toLocaleString('en-US') : '0';
      if (total === 0) return `${label}: reading · ${rows} · ${rate} rows/s`;
      const left = value > 0 ? Math.round(((total - value) * elapsedMs) / value / 1000) : undefined;
      return `${label}: reading ${barText} ${Math.floor((100 * value) / total)}% · ${rows} · ${rate} rows/s${left !== undefined ? ` · about ${left} s left to read` : ''}`;
    }
  }
}
