/**
 * What a label could not show as asked, in plain words: the `Label-Warnings` header of one
 * label, and a print batch's `labelWarnings`, said the same way.
 */

const WORDS: Record<string, string> = {
  'name-not-visible': 'The name has no visible character; it prints as [no name].',
  'code-omitted': 'A code was left out for lack of room on this stock.',
  'text-shortened': 'Some text did not fit and is printed shortened, ending in “…”. A larger stock, or a shorter name, shows it whole.',
  'label-empty': 'The design shows nothing this record has: the label would be blank.',
  'due-date-cut': 'The due date did not fit whole.',
  'footer-shortened': 'The footer was too long and is printed shortened.',
};

/** One warning in words; `glyphs` are the characters printed as boxes (U+XXXX), with missing-glyphs. */
export function warningInWords(keyword: string, glyphs: readonly string[] = []): string {
  if (keyword === 'missing-glyphs') return `No font has these characters; they print as boxes: ${glyphs.join(' ')}`;
  // A warning this page does not know yet: said as such, with the service's word for it.
  return WORDS[keyword] ?? `Something is not as asked (${keyword}).`;
}

/** The `Label-Warnings` header's warnings in words (`missing-glyphs=U+0F00 U+10437, text-shortened`). */
export function headerInWords(header: string): string[] {
  return header
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)
    .map((w) => {
      const [keyword = '', glyphs] = w.split('=');
      return warningInWords(keyword, glyphs ? glyphs.split(' ') : []);
    });
}
