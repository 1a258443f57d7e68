/**
 * Bundled fonts, registered once at module load. Labels must look the same on
 * every machine, so nothing here may come from the host's fonts:
 *
 * - node-canvas draws text with Pango, which asks fontconfig. fontconfig merges
 *   registered files with every system font, and for a glyph missing from the
 *   requested families it falls back to whatever system font has it (measured:
 *   Hebrew asked of "LM Sans" alone drew with the host's DejaVu). The host's
 *   /etc/fonts rules also change hinting, hence pixels. So before fontconfig
 *   first initialises we point FONTCONFIG_FILE at our own fonts.conf, which
 *   lists no font directories: the bundled files are the only fonts there are,
 *   and fallback can only land on them. This is process-wide and only works if
 *   no text was drawn with canvas before this module loaded (the check in
 *   `fontIsolation` below tells).
 * - registerFont() maps our family names ("LM Sans") to each file's own family
 *   name ("Noto Sans") when a font string is set, so Pango sees the files' real
 *   names; with the isolation above, no host font can answer to them.
 * - Which files, from which packages, and why those: font-files.ts. This
 *   module registers them and answers for their coverage (`missingGlyphs`:
 *   each file's cmap, cmap.ts, says which code points it has).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';
import { createCanvas, registerFont } from 'canvas';
import { cmapCoverageOfFile, covers } from './cmap.js';
import { FAMILIES, FONT_FILES, type Weight } from './font-files.js';
import { withFontLock, type FontLockWorkerData } from './font-lock.js';

const here = dirname(fileURLToPath(import.meta.url));

const STACK = FAMILIES.map((f) => `"${f}"`).join(', ');

/** A CSS font string for node-canvas with every bundled family as fallback. */
export function fontString(sizePx: number, weight: Weight = 'normal'): string {
  return `${weight === 'bold' ? 'bold ' : ''}${sizePx}px ${STACK}`;
}

/** fonts.conf sits next to this file in src/; a dist/ build may not copy it. */
function findFontsConf(): string | undefined {
  const candidates = [join(here, 'fonts.conf'), resolve(here, '../../src/labels/fonts.conf')];
  return candidates.find((p) => existsSync(p));
}

/**
 * 'isolated' when the host's fonts are invisible (the normal case), 'shared'
 * when fontconfig had already been initialised by someone else drawing text
 * before this module loaded, so host fonts may leak into fallback.
 */
export let fontIsolation: 'isolated' | 'shared' = 'shared';

/** Union of the code points the bundled fonts cover (Regular files; Bold covers the same). */
const coverage = new Uint8Array(0x110000 >> 3);
for (const f of FONT_FILES) if (f.weight === 'normal') cmapCoverageOfFile(f.file, coverage);

/** Characters drawn without a glyph of their own: spaces, controls, joiners, selectors (Pango shows nothing for them). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Zs}\p{Zl}\p{Zp}]/u;

/** Code points of `text` that no bundled font has a glyph for (they print as boxes), in order of appearance. */
export function missingGlyphs(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80 || covers(coverage, cp) || INVISIBLE.test(ch) || out.includes(cp)) continue;
    out.push(cp);
  }
  return out;
}

/** Thrown when labels would be drawn with the host's fonts (see fontIsolation). */
export class FontIsolationError extends Error {
  override name = 'FontIsolationError';
}

/** Refuses to draw unless only the bundled fonts are visible (labels would differ between machines). */
export function assertFontIsolation(): void {
  if (fontIsolation !== 'isolated') {
    throw new FontIsolationError(
      'font isolation does not hold: fonts.conf was not found next to fonts.ts, or canvas drew text before the label engine loaded; labels would use the host\'s fonts',
    );
  }
}

/**
 * What a render worker is told by the thread that started it (render-pool.ts): the
 * main thread's isolation verdict, so the worker makes no canvas call while it loads
 * (node-canvas aborts the whole process when it calls into a thread being torn down,
 * as one terminated while loading is: a pool closed as it starts), and the process's
 * font lock (font-lock.ts).
 */
export interface FontWorkerData extends FontLockWorkerData {
  fontIsolation?: 'isolated' | 'shared';
}

function init(): void {
  const inherited = isMainThread ? undefined : (workerData as FontWorkerData | undefined)?.fontIsolation;
  if (inherited) {
    fontIsolation = inherited;
    return;
  }
  const conf = findFontsConf();
  const hostSetting = process.env.FONTCONFIG_FILE;
  if (conf) process.env.FONTCONFIG_FILE = conf;
  // Registered once per process, on the main thread only. node-canvas keeps its
  // registered fonts in one process-wide list that every thread reads while it
  // draws; registering a font again frees and replaces that font's entry, so a
  // worker thread registering while another draws (or registers) frees memory in
  // use: that crashed a service at start ("malloc(): unaligned tcache chunk").
  // Render workers (render-pool.ts) start from a main thread that loaded this
  // module first, so the fonts are already there, and they inherit its verdict
  // (FontWorkerData); any other thread probes for itself below.
  if (isMainThread) for (const f of FONT_FILES) registerFont(f.file, { family: f.family, weight: f.weight });
  // A family nobody registered falls back to one of ours only when isolated.
  const ctx = createCanvas(1, 1).getContext('2d');
  const probe = 'Hamburgefonstiv';
  const widthIn = (family: string): number =>
    withFontLock(() => {
      ctx.font = `100px "${family}"`;
      return ctx.measureText(probe).width;
    });
  const ours = new Set(FAMILIES.map(widthIn));
  fontIsolation = conf && ours.has(widthIn('LM No Such Family')) ? 'isolated' : 'shared';
  // Fontconfig has read its configuration by now; child processes (print commands,
  // browsers in tests) get the host's setting back, not our font-less one.
  if (hostSetting === undefined) delete process.env.FONTCONFIG_FILE;
  else process.env.FONTCONFIG_FILE = hostSetting;
}

init();
