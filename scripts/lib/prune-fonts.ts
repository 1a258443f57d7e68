/**
 * The files of the font packages that labels never read: the packages install
 * every weight of their faces, and @expo-google-fonts a specimen picture of
 * each; labels read the Regular and Bold files (src/labels/font-files.ts says
 * which and why). Their package.json, entry file and licence stay.
 */
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** Font files, and pictures of them (e.g. NotoSansThai_400Regular.ttf.png). */
const FONT = /\.(ttf|otf|ttc|woff2?|png)$/i;

/** node_modules/<name> or node_modules/@scope/<name> above a file inside a package. */
export function packageRoot(file: string): string {
  const parts = file.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) throw new Error(`${file} is not inside node_modules`);
  return parts.slice(0, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join(sep);
}

/** Every font file and picture in the packages that hold `keep`'s files, other than those files. */
export function unusedFontFiles(keep: readonly string[]): string[] {
  const kept = new Set(keep);
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (FONT.test(e.name) && !kept.has(path)) out.push(path);
    }
  };
  for (const root of new Set(keep.map(packageRoot))) walk(root);
  return out.sort();
}
