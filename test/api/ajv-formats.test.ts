import { describe, expect, it } from 'vitest';
import { isBase64 } from '../../src/api/ajv-formats.js';

describe('isBase64 (the spec\'s `format: byte`)', () => {
  it('accepts what Buffer writes as base64, whatever the length', () => {
    for (let n = 0; n < 40; n++) expect(isBase64(Buffer.alloc(n, n * 37).toString('base64')), `length ${n}`).toBe(true);
  });
  it.each(['abc', 'ab=c', 'a===', 'ab c', 'ab-_', '====', 'YQ==YQ==', 'é\u00e9=='])('refuses %j', (text) => {
    expect(isBase64(text)).toBe(false);
  });
  it('judges a logo at the size limit whole (a bad character near its end too)', () => {
    const logo = Buffer.alloc(384 * 1024, 7).toString('base64');
    expect(isBase64(logo)).toBe(true);
    expect(isBase64(`${logo.slice(0, -8)}*${logo.slice(-7)}`)).toBe(false);
  });
});
