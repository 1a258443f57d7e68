/**
 * What counts as clean text in a stored field, and how to show untrusted text on a
 * terminal. Imported files are hostile until checked: a NUL in a name breaks
 * command printers, an ESC or a C1 control in an error message rewrites the
 * user's terminal, and a name of zero-width characters prints an empty label.
 */

/**
 * Characters no stored field may hold: C0/C1 controls and DEL (Cc), lone surrogates
 * (Cs: only reachable through JSON `\ud800` escapes; they are not encodable as UTF-8)
 * and noncharacters (U+FFFE, U+FDD0… are "never for interchange"). Line and
 * paragraph separators break a one-line field (a name) as a newline would.
 */
const FORBIDDEN_ONE_LINE = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\p{Zl}\p{Zp}]/u;
/** Descriptions may hold line breaks (LF, CR) and tabs; nothing else from FORBIDDEN_ONE_LINE but the separators. */
const FORBIDDEN_MULTILINE = /[^\P{Cc}\t\n\r]|[\p{Cs}\p{Noncharacter_Code_Point}]/u;

/**
 * Characters that draw nothing on their own: whitespace, controls, format characters
 * (zero-width spaces and joiners, bidi marks, the BOM), default-ignorables (Hangul
 * fillers, variation selectors, the combining grapheme joiner), marks with no base,
 * and U+2800 BRAILLE PATTERN BLANK, which is a "symbol" that renders as a blank.
 */
const NOT_VISIBLE = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\p{M}\u2800]*$/u;

const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const PLAIN_MULTILINE = /^[\x20-\x7e\t\n\r]*$/;

/** What is wrong with a field's text, in words, or undefined. `text` is already trimmed. */
export function textProblem(text: string, multiline: boolean): string | undefined {
  // Most fields are plain printable ASCII: clean, and (trimmed, non-empty) visible.
  if ((multiline ? PLAIN_MULTILINE : PLAIN).test(text)) return undefined;
  const bad = (multiline ? FORBIDDEN_MULTILINE : FORBIDDEN_ONE_LINE).exec(text)?.[0];
  if (bad !== undefined) return `contains ${codePoint(bad)}, ${characterKind(bad)}`;
  if (!multiline && NOT_VISIBLE.test(text)) return 'has no visible character';
  return undefined;
}

function characterKind(c: string): string {
  if (/\p{Cc}/u.test(c)) return 'a control character';
  if (/\p{Cs}/u.test(c)) return 'a lone surrogate (half of a character)';
  if (/[\p{Zl}\p{Zp}]/u.test(c)) return 'a line break';
  return 'a noncharacter';
}

/** U+001B form. */
export function codePoint(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Length in characters (code points), as people count them: '電動ドリル' is 5, '𝒳' is 1. */
export function characterCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * Characters shown escaped on a terminal: controls (ESC starts a terminal escape
 * sequence; C1 U+009B is a one-character CSI), format characters (bidi overrides
 * reorder the rest of the line; zero-width characters hide), line separators,
 * lone surrogates, noncharacters, and backslash (so an escape can't be forged).
 */
const UNSAFE_FOR_TERMINAL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\\]/gu;

/**
 * Untrusted text made safe to print: unsafe characters become `\u{…}` escapes
 * (`\x1b` shows as `\u{1b}`), and text longer than `max` characters is cut with
 * `…(N characters)`, so a 50 MB field can't flood an error message.
 */
export function printable(text: string, max = 80): string {
  const cut = characterCount(text) > max ? `${Array.from(text.slice(0, max * 2)).slice(0, max).join('')}…(${characterCount(text)} characters)` : text;
  return cut.replace(UNSAFE_FOR_TERMINAL, (c) => (c === '\\' ? '\\\\' : `\\u{${c.codePointAt(0)!.toString(16)}}`));
}

/** Untrusted text in single quotes, made printable. */
export function quoted(text: string, max?: number): string {
  return `'${printable(text, max)}'`;
}

/** Multi-line untrusted text (an error's stack) made safe to print, line breaks kept. */
export function printableLines(text: string, maxPerLine = 1000): string {
  return text
    .split(/\r?\n/)
    .map((line) => printable(line, maxPerLine))
    .join('\n');
}
