/**
 * The font files labels are drawn with: which files, from which packages, and
 * why those. fonts.ts registers them; this list loads no canvas, so
 * engine-version.ts and scripts/prune-fonts.ts read it without the engine.
 *
 * Coverage (the scripts of the world's 30 most-spoken languages, plus
 * monochrome emoji): Noto Sans (Latin incl. Vietnamese, Greek, Cyrillic), Noto
 * Sans Arabic (Arabic, Persian, Urdu, Punjabi in Shahmukhi), Hebrew,
 * Devanagari (Hindi, Marathi, Bhojpuri), Bengali, Gurmukhi, Gujarati, Tamil,
 * Telugu, Kannada, Thai, Ethiopic (Amharic), Noto Sans S Chinese (2014 subset:
 * all CJK Unified Ideographs of the BMP, so Traditional Chinese for Cantonese
 * too, drawn with Simplified glyph forms; kana for Japanese), Noto Sans
 * Korean (Hangul) and Noto Emoji (monochrome: a thermal head prints one bit).
 * Regular and Bold only.
 *
 * Where they come from, and why:
 * - TTF/OTF files only: WOFF/WOFF2 (what @fontsource ships) is accepted by
 *   registerFont, but Pango/HarfBuzz cannot shape it and draws nothing.
 * - @embedpdf/fonts-* and @expo-google-fonts/* are the npm packages with plain
 *   TTF/OTF Noto files (made for a PDF viewer and for React Native), pinned in
 *   package.json with their integrity in package-lock.json, so every install
 *   draws the same pixels. No npm package has just these faces: these install
 *   every weight, 112 MB, of which the 30 files here are 33 MB (26 MB of them
 *   the CJK and Korean faces). scripts/setup therefore deletes the other
 *   weights' files after npm ci (scripts/prune-fonts.ts, by this list).
 * - Debian's packages are no smaller and do not draw the same: fonts-noto-core
 *   and fonts-noto-cjk install 42 and 91 MB, have no monochrome emoji (only
 *   fonts-noto-color-emoji's bitmaps), and their Noto versions change with the
 *   host's release, and with them the labels' pixels.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Our own family names, in fallback order (Pango tries them left to right per character). */
export const FAMILIES = [
  'LM Sans',
  'LM Sans Arabic',
  'LM Sans Hebrew',
  'LM Sans Devanagari',
  'LM Sans Bengali',
  'LM Sans Gurmukhi',
  'LM Sans Gujarati',
  'LM Sans Tamil',
  'LM Sans Telugu',
  'LM Sans Kannada',
  'LM Sans Thai',
  'LM Sans Ethiopic',
  'LM Sans CJK',
  'LM Sans Korean',
  'LM Emoji',
] as const;

export type Weight = 'normal' | 'bold';

export interface FontFile {
  family: string;
  weight: Weight;
  /** Absolute path. */
  file: string;
}

/** The folder holding a package's entry file (its exports hide subpaths). */
function pkgDir(name: string, up = 0): string {
  let dir = dirname(require.resolve(name));
  for (let i = 0; i < up; i++) dir = dirname(dir);
  return dir;
}

/** An @expo-google-fonts package: one folder per weight, e.g. 400Regular/NotoSansThai_400Regular.ttf. */
function expo(family: string, pkg: string, stem: string): FontFile[] {
  const dir = pkgDir(`@expo-google-fonts/${pkg}`);
  return [
    { family, weight: 'normal', file: join(dir, '400Regular', `${stem}_400Regular.ttf`) },
    { family, weight: 'bold', file: join(dir, '700Bold', `${stem}_700Bold.ttf`) },
  ];
}

/** An @embedpdf/fonts-* package: fonts/<stem>-Regular / -Bold. */
function embedpdf(family: string, pkg: string, stem: string, ext: string): FontFile[] {
  const dir = join(pkgDir(`@embedpdf/${pkg}`, 1), 'fonts');
  return [
    { family, weight: 'normal', file: join(dir, `${stem}-Regular.${ext}`) },
    { family, weight: 'bold', file: join(dir, `${stem}-Bold.${ext}`) },
  ];
}

function bundledFiles(): FontFile[] {
  const [latin, arabic, hebrew, deva, beng, guru, gujr, taml, telu, knda, thai, ethi, cjk, korean, emoji] = FAMILIES;
  return [
    ...embedpdf(latin, 'fonts-latin', 'NotoSans', 'ttf'),
    ...expo(arabic, 'noto-sans-arabic', 'NotoSansArabic'),
    ...embedpdf(hebrew, 'fonts-hebrew', 'NotoSansHebrew', 'ttf'),
    ...expo(deva, 'noto-sans-devanagari', 'NotoSansDevanagari'),
    ...expo(beng, 'noto-sans-bengali', 'NotoSansBengali'),
    ...expo(guru, 'noto-sans-gurmukhi', 'NotoSansGurmukhi'),
    ...expo(gujr, 'noto-sans-gujarati', 'NotoSansGujarati'),
    ...expo(taml, 'noto-sans-tamil', 'NotoSansTamil'),
    ...expo(telu, 'noto-sans-telugu', 'NotoSansTelugu'),
    ...expo(knda, 'noto-sans-kannada', 'NotoSansKannada'),
    ...expo(thai, 'noto-sans-thai', 'NotoSansThai'),
    ...expo(ethi, 'noto-sans-ethiopic', 'NotoSansEthiopic'),
    ...embedpdf(cjk, 'fonts-sc', 'NotoSansHans', 'otf'),
    ...embedpdf(korean, 'fonts-kr', 'NotoSansKR', 'otf'),
    ...expo(emoji, 'noto-emoji', 'NotoEmoji'),
  ];
}

export const FONT_FILES: readonly FontFile[] = bundledFiles();
