import { describe, expect, it } from 'vitest';
import { isMatrixSymbology, SYMBOLOGIES, type MatrixSymbologyName, type Symbology } from '../../src/labels/symbols.js';

/** The table layout reads (SYMBOLOGIES) must describe the symbols the encoders make. */
const URL = 'https://inventory.example.com/item/9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64';
const names = Object.keys(SYMBOLOGIES) as Symbology[];
const matrix = names.filter(isMatrixSymbology);

describe('SYMBOLOGIES', () => {
  it.each(matrix)('%s: sizes and quiet zone are those of the symbols it encodes', (name: MatrixSymbologyName) => {
    const s = SYMBOLOGIES[name];
    const levels = s.levels ? [s.levels.usual, ...s.levels.stronger, s.levels.fallback] : [undefined];
    for (const level of levels) {
      const symbol = s.encode(URL, level);
      expect([symbol.symbology, symbol.cols, symbol.rows, symbol.quiet]).toEqual([name, s.modulesAcross(URL, level), symbol.cols, s.quiet]);
    }
    // Its least dense symbol is the one its room is sized for: no level gives fewer modules.
    expect(Math.min(...levels.map((l) => s.modulesAcross(URL, l)!))).toBe(s.leastModulesAcross(URL));
    expect(s.preferredModule).toBeGreaterThanOrEqual(s.minModule);
    if (s.smaller) {
      const smaller = SYMBOLOGIES[s.smaller];
      expect(smaller.kind).toBe('matrix');
      // Smaller for the same data: fewer modules, quiet zone included.
      expect(smaller.leastModulesAcross(URL) + 2 * smaller.quiet).toBeLessThan(s.leastModulesAcross(URL) + 2 * s.quiet);
    }
  });

  it.each(names.filter((n) => !isMatrixSymbology(n)))('%s: quiet zone and caption are those of the symbols it encodes', (name) => {
    const s = SYMBOLOGIES[name as 'code128'];
    const symbol = s.encode('000001', '000-001', true);
    expect([symbol.symbology, symbol.quiet, symbol.text]).toEqual([name, s.quiet, '000-001']);
    expect(symbol.widths.reduce((a, b) => a + b, 0)).toBe(symbol.modules);
    expect(() => s.encode('grcy:p:1', 'x', true)).toThrow(/digits only/);
    expect(s.encode('grcy:p:1', 'x', false).data).toBe('grcy:p:1');
    expect(s.modules.lastResort).toBeLessThan(Math.min(...s.modules.preferred));
  });
});
