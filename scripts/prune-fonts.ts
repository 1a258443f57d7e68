/**
 * Deletes from the installed font packages the files labels never read: they
 * install every weight and specimen pictures (112 MB), labels read Regular and
 * Bold (33 MB; see src/labels/font-files.ts). scripts/setup runs it after npm ci, and a
 * container build should too; npm ci brings the files back.
 *   node --import tsx scripts/prune-fonts.ts [--dry-run]
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { FONT_FILES } from '../src/labels/font-files.js';
import { unusedFontFiles } from './lib/prune-fonts.js';

const dryRun = process.argv.includes('--dry-run');
const keep = FONT_FILES.map((f) => f.file);
const missing = keep.filter((f) => !existsSync(f));
if (missing.length > 0) {
  // Deleting around a broken install would only hide it: npm ci first.
  console.error(`prune-fonts: the label fonts are not all installed (run npm ci):\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
let bytes = 0;
const unused = unusedFontFiles(keep);
for (const file of unused) {
  bytes += statSync(file).size;
  if (dryRun) console.log(file);
  else rmSync(file);
}
const kept = keep.reduce((sum, f) => sum + statSync(f).size, 0);
console.log(
  `prune-fonts: ${dryRun ? 'would remove' : 'removed'} ${unused.length} files labels never read (${(bytes / 1e6).toFixed(1)} MB); ` +
    `kept ${keep.length} (${(kept / 1e6).toFixed(1)} MB)`,
);
