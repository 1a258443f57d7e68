import { describe, expect, it } from 'vitest';
import { characterCount, printable, printableLines, textProblem } from '../../src/records/text-rules.js';

describe('textProblem (one-line fields: names)', () => {
  it('accepts ordinary names in any script', () => {
    for (const name of ['Drill', 'Akku-Bohrschrauber 18 V', 'Κατσαβίδι', '電動ドリル', 'مفك براغي', 'קופסה', 'Café', '👩‍🔧 kit', 'x']) {
      expect(textProblem(name, false), name).toBeUndefined();
    }
  });

  it('names the control character, surrogate, noncharacter or line break it finds', () => {
    expect(textProblem('a\u0000b', false)).toBe('contains U+0000, a control character');
    expect(textProblem('red \u001b[31m', false)).toBe('contains U+001B, a control character');
    expect(textProblem('csi \u009b2J', false)).toBe('contains U+009B, a control character'); // 8-bit CSI
    expect(textProblem('del\u007f', false)).toBe('contains U+007F, a control character');
    expect(textProblem('two\nlines', false)).toBe('contains U+000A, a control character');
    expect(textProblem('tab\there', false)).toBe('contains U+0009, a control character');
    expect(textProblem('half \ud800 pair', false)).toBe('contains U+D800, a lone surrogate (half of a character)');
    expect(textProblem('low \udc00', false)).toBe('contains U+DC00, a lone surrogate (half of a character)');
    expect(textProblem('non\uffff', false)).toBe('contains U+FFFF, a noncharacter');
    expect(textProblem('non\ufdd0', false)).toBe('contains U+FDD0, a noncharacter');
    expect(textProblem('para\u2029graph', false)).toBe('contains U+2029, a line break');
  });

  it('rejects names with nothing visible in them', () => {
    const invisible = [
      '\u200b\u200b', // zero-width spaces
      '\u200d\u200c', // joiners
      '\u202e\u202d', // bidi overrides
      '\u3164', // Hangul filler
      '\ufe0f', // variation selector
      '\u034f', // combining grapheme joiner
      '\u0301\u0308', // marks with no base
      '\u2800\u2800', // braille blank
      '\u00ad', // soft hyphen
      '\u2060\ufeff', // word joiner, BOM
    ];
    for (const name of invisible) expect(textProblem(name, false), JSON.stringify(name)).toBe('has no visible character');
    expect(textProblem('\u200bA\u200b', false)).toBeUndefined(); // one visible character is enough
  });
});

describe('textProblem (multi-line fields: descriptions)', () => {
  it('allows line breaks and tabs, nothing else of the controls', () => {
    expect(textProblem('line one\nline two\r\n\tindented', true)).toBeUndefined();
    expect(textProblem('', true)).toBeUndefined();
    expect(textProblem('bell\u0007', true)).toBe('contains U+0007, a control character');
    expect(textProblem('esc\u001b]0;title\u0007', true)).toBe('contains U+001B, a control character');
    expect(textProblem('\ud83d alone', true)).toBe('contains U+D83D, a lone surrogate (half of a character)');
  });
});

describe('characterCount', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(characterCount('電動ドリル')).toBe(5);
    expect(characterCount('𝒳𝒳')).toBe(2);
    expect(characterCount('\ud800x')).toBe(2); // a lone surrogate is one
  });
});

describe('printable', () => {
  it('escapes everything that could drive a terminal, and backslashes', () => {
    const hostile = 'A\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202eevil\r\n\\u{1b}';
    const shown = printable(hostile, 200);
    expect(shown).toBe('A\\u{1b}[2J\\u{1b}]0;pwned\\u{7}\\u{9b}31m\\u{202e}evil\\u{d}\\u{a}\\\\u{1b}');
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('cuts long text and says how long it was', () => {
    const shown = printable('x'.repeat(50_000_000 / 1000), 10);
    expect(shown).toBe('xxxxxxxxxx…(50000 characters)');
    expect(printable('𝒳'.repeat(20), 3)).toBe('𝒳𝒳𝒳…(20 characters)');
  });

  it('keeps line breaks in printableLines only', () => {
    expect(printableLines('Error: bad \u001b[1m\n    at x')).toBe('Error: bad \\u{1b}[1m\n    at x');
  });
});
