import { mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cmapCoverageOfFile, covers } from '../../src/labels/cmap.js';
import { FONT_FILES } from '../../src/labels/font-files.js';

const fileOf = (family: string) => FONT_FILES.find((f) => f.family === family && f.weight === 'normal')!.file;
const head = (path: string, bytes: number): Buffer => {
  const buf = Buffer.alloc(bytes);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, bytes, 0);
  } finally {
    closeSync(fd);
  }
  return buf;
};

describe('cmapCoverageOfFile', () => {
  it('reads which code points each font has from its cmap table', () => {
    const latin = cmapCoverageOfFile(fileOf('LM Sans'));
    const thai = cmapCoverageOfFile(fileOf('LM Sans Thai'));
    const cjk = cmapCoverageOfFile(fileOf('LM Sans CJK'));
    expect([covers(latin, 0x41), covers(latin, 0x1ea0), covers(latin, 0x0e01), covers(latin, 0x4e2d)]).toEqual([true, true, false, false]);
    expect([covers(thai, 0x0e01), covers(thai, 0x4e2d)]).toEqual([true, false]);
    expect([covers(cjk, 0x4e2d), covers(cjk, 0x3042), covers(cjk, 0x0e01)]).toEqual([true, true, false]);
  });

  it('adds to the set it is given', () => {
    const set = cmapCoverageOfFile(fileOf('LM Sans'));
    cmapCoverageOfFile(fileOf('LM Sans Thai'), set);
    expect([covers(set, 0x41), covers(set, 0x0e01)]).toEqual([true, true]);
  });

  it('refuses a truncated font instead of reading garbage', () => {
    const file = fileOf('LM Sans');
    const dir = mkdtempSync(join(tmpdir(), 'cmap-'));
    // The table directory is whole, the tables it points to are cut off.
    try {
      const cut = join(dir, 'cut.ttf');
      writeFileSync(cut, head(file, 12 + 16 * head(file, 6).readUInt16BE(4)));
      expect(statSync(cut).size).toBeLessThan(statSync(file).size);
      expect(() => cmapCoverageOfFile(cut)).toThrow(/truncated font/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
