import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, unusedFontFiles } from '../../scripts/lib/prune-fonts.js';
import { FONT_FILES } from '../../src/labels/font-files.js';

/** A node_modules tree with the given files (contents irrelevant). */
function tree(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'prune-fonts-'));
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), 'x');
  }
  return root;
}

describe('prune-fonts', () => {
  it('names the other weights and specimen pictures of the packages in use, never a kept file, a package file or another package', () => {
    const root = tree([
      'node_modules/@fonts/thai/package.json',
      'node_modules/@fonts/thai/index.js',
      'node_modules/@fonts/thai/LICENSE',
      'node_modules/@fonts/thai/400Regular/Thai_400Regular.ttf',
      'node_modules/@fonts/thai/400Regular/Thai_400Regular.ttf.png',
      'node_modules/@fonts/thai/700Bold/Thai_700Bold.ttf',
      'node_modules/@fonts/thai/900Black/Thai_900Black.ttf',
      'node_modules/latin/fonts/Sans-Regular.otf',
      'node_modules/latin/fonts/Sans-Light.otf',
      'node_modules/other/fonts/Other-Regular.ttf',
    ]);
    const keep = ['@fonts/thai/400Regular/Thai_400Regular.ttf', '@fonts/thai/700Bold/Thai_700Bold.ttf', 'latin/fonts/Sans-Regular.otf'].map((f) => join(root, 'node_modules', f));
    expect(unusedFontFiles(keep)).toEqual(
      ['@fonts/thai/400Regular/Thai_400Regular.ttf.png', '@fonts/thai/900Black/Thai_900Black.ttf', 'latin/fonts/Sans-Light.otf'].map((f) => join(root, 'node_modules', f)),
    );
  });

  it('finds each package folder, scoped or not, and refuses a file outside node_modules', () => {
    expect(packageRoot('/a/node_modules/@embedpdf/fonts-sc/fonts/X.otf')).toBe('/a/node_modules/@embedpdf/fonts-sc');
    expect(packageRoot('/a/node_modules/x/node_modules/y/f.ttf')).toBe('/a/node_modules/x/node_modules/y');
    expect(() => packageRoot('/a/fonts/f.ttf')).toThrow(/not inside node_modules/);
  });

  it('keeps every file the labels read, on the installed packages', () => {
    const unused = new Set(unusedFontFiles(FONT_FILES.map((f) => f.file)));
    expect(FONT_FILES.length).toBe(30);
    for (const f of FONT_FILES) expect(unused.has(f.file), f.file).toBe(false);
  });
});
