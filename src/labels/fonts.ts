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
 * - WOFF/WOFF2 files (what @fontsource ships) do not work here: registerFont
 *   accepts them, but Pango/HarfBuzz cannot shape them and draw nothing. Hence
 *   TTF/OTF packages.
 *
 * Coverage: Noto Sans (Latin incl. accents, Greek, Cyrillic), Noto Sans Arabic
 * (Arabic, Persian, Urdu), Noto Sans Hebrew, Noto Sans S Chinese (2014 subset:
 * GB2312 and more, ~30.7k code points incl. kana, so Japanese too, drawn with
 * Chinese glyph forms for Han) and Noto Sans Korean (Hangul + KS X 1001 Hanja).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, registerFont } from 'canvas';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** Our own family names; each maps to one bundled file per weight. */
export const FAMILIES = {
  latin: 'LM Sans',
  arabic: 'LM Sans Arabic',
  hebrew: 'LM Sans Hebrew',
  cjk: 'LM Sans CJK',
  korean: 'LM Sans Korean',
} as const;

/** Pango tries families left to right per character; order = priority. */
const STACK = [FAMILIES.latin, FAMILIES.arabic, FAMILIES.hebrew, FAMILIES.cjk, FAMILIES.korean]
  .map((f) => `"${f}"`)
  .join(', ');

export type Weight = 'normal' | 'bold';

/** A CSS font string for node-canvas with every bundled family as fallback. */
export function fontString(sizePx: number, weight: Weight = 'normal'): string {
  return `${weight === 'bold' ? 'bold ' : ''}${sizePx}px ${STACK}`;
}

/** The folder holding a package's entry file (its exports hide subpaths). */
function pkgDir(name: string, up = 0): string {
  let dir = dirname(require.resolve(name));
  for (let i = 0; i < up; i++) dir = dirname(dir);
  return dir;
}

interface FontFile {
  family: string;
  weight: Weight;
  file: string;
}

function bundledFiles(): FontFile[] {
  const latin = join(pkgDir('@embedpdf/fonts-latin', 1), 'fonts');
  const hebrew = join(pkgDir('@embedpdf/fonts-hebrew', 1), 'fonts');
  const sc = join(pkgDir('@embedpdf/fonts-sc', 1), 'fonts');
  const kr = join(pkgDir('@embedpdf/fonts-kr', 1), 'fonts');
  const arabic = pkgDir('@expo-google-fonts/noto-sans-arabic');
  return [
    { family: FAMILIES.latin, weight: 'normal', file: join(latin, 'NotoSans-Regular.ttf') },
    { family: FAMILIES.latin, weight: 'bold', file: join(latin, 'NotoSans-Bold.ttf') },
    { family: FAMILIES.arabic, weight: 'normal', file: join(arabic, '400Regular/NotoSansArabic_400Regular.ttf') },
    { family: FAMILIES.arabic, weight: 'bold', file: join(arabic, '700Bold/NotoSansArabic_700Bold.ttf') },
    { family: FAMILIES.hebrew, weight: 'normal', file: join(hebrew, 'NotoSansHebrew-Regular.ttf') },
    { family: FAMILIES.hebrew, weight: 'bold', file: join(hebrew, 'NotoSansHebrew-Bold.ttf') },
    { family: FAMILIES.cjk, weight: 'normal', file: join(sc, 'NotoSansHans-Regular.otf') },
    { family: FAMILIES.cjk, weight: 'bold', file: join(sc, 'NotoSansHans-Bold.otf') },
    { family: FAMILIES.korean, weight: 'normal', file: join(kr, 'NotoSansKR-Regular.otf') },
    { family: FAMILIES.korean, weight: 'bold', file: join(kr, 'NotoSansKR-Bold.otf') },
  ];
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

export const FONT_FILES: readonly FontFile[] = bundledFiles();

function init(): void {
  const conf = findFontsConf();
  const hostSetting = process.env.FONTCONFIG_FILE;
  if (conf) process.env.FONTCONFIG_FILE = conf;
  for (const f of FONT_FILES) registerFont(f.file, { family: f.family, weight: f.weight });
  // A family nobody registered falls back to one of ours only when isolated.
  const ctx = createCanvas(1, 1).getContext('2d');
  const probe = 'Hamburgefonstiv';
  const widthIn = (family: string): number => {
    ctx.font = `100px "${family}"`;
    return ctx.measureText(probe).width;
  };
  const ours = new Set(Object.values(FAMILIES).map(widthIn));
  fontIsolation = conf && ours.has(widthIn('LM No Such Family')) ? 'isolated' : 'shared';
  // Fontconfig has read its configuration by now; child processes (print commands,
  // browsers in tests) get the host's setting back, not our font-less one.
  if (hostSetting === undefined) delete process.env.FONTCONFIG_FILE;
  else process.env.FONTCONFIG_FILE = hostSetting;
}

init();
