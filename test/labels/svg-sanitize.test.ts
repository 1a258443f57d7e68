/**
 * The SVG logo sanitiser (src/labels/svg-sanitize.ts): what it refuses, what it
 * drops, and that what it writes out holds nothing outside the allow-list.
 * Drawing and time limits: logo-process.test.ts and test/hostile/svg-logo.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { sanitizeSvg, SVG_MAX_DEPTH, SVG_MAX_DRAWN, SVG_MAX_ELEMENTS, SvgError } from '../../src/labels/svg-sanitize.js';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const svg = (body: string, attrs = 'width="10" height="10"') => `<svg ${NS} ${attrs}>${body}</svg>`;
const refusal = (input: string): string => {
  try {
    sanitizeSvg(input);
  } catch (err) {
    expect(err).toBeInstanceOf(SvgError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${input.slice(0, 200)}`);
};

/** `count` copies of `#l{i-1}` in each of `levels` groups: count^levels elements drawn. */
function fanOut(levels: number, count: number): string {
  let body = '<g id="l0"><rect width="1" height="1"/></g>';
  for (let i = 1; i <= levels; i++) body += `<g id="l${i}">${`<use href="#l${i - 1}"/>`.repeat(count)}</g>`;
  return svg(`<defs>${body}</defs><use href="#l${levels}"/>`);
}

describe('sanitizeSvg', () => {
  it('refuses text (librsvg lays out a run without spaces in quadratic time) and says what to do', () => {
    expect(refusal(svg(`<text y="5">${'x'.repeat(30_000)}</text>`))).toBe('the SVG contains a <text> element (text: convert it to paths)');
    expect(refusal(svg('<g><tspan>a</tspan></g>'))).toMatch(/<tspan> element \(text/);
  });

  it('refuses CSS escapes and at-rules wherever CSS is read (they passed the old pattern filter)', () => {
    expect(refusal(svg('<rect width="5" height="5" style="fill:u\\72l(file:///etc/passwd)"/>'))).toBe('the SVG contains a CSS escape or at-rule');
    expect(refusal(svg('<style>@\\69mport url(file:///etc/passwd);</style>'))).toBe('the SVG contains a CSS escape or at-rule');
    expect(refusal(svg('<style>@import url(http://127.0.0.1/s.css);</style>'))).toBe('the SVG contains a CSS escape or at-rule');
    expect(refusal(svg('<rect fill="u\\72l(http://x/)" width="5" height="5"/>'))).toBe('the SVG contains a CSS escape or at-rule');
    expect(refusal(svg('<style><![CDATA[rect{fill:url(file:///etc/passwd)}]]></style>'))).toMatch(/url\(\) outside the SVG/);
    expect(refusal(svg('<rect fill="url(http://x/p#a)" width="5" height="5"/>'))).toMatch(/url\(\) outside the SVG/);
    expect(refusal(svg('<rect style="fill:&quot;x&quot;" width="5" height="5"/>'))).toMatch(/fill value it does not accept/);
  });

  it('refuses links, images, scripts, foreign content, filters and DOCTYPEs', () => {
    expect(refusal(svg('<use href="http://x/y.svg#a"/>'))).toMatch(/a link to something outside the SVG/);
    expect(refusal(`<svg ${NS} xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><use xlink:href="file:///etc/passwd"/></svg>`)).toMatch(/a link to something outside/);
    expect(refusal(svg('<image href="#a" width="1" height="1"/>'))).toMatch(/<image> element \(an image/);
    expect(refusal(svg('<script>alert(1)</script>'))).toMatch(/<script> element \(a script\)/);
    expect(refusal(svg('<foreignObject/>'))).toMatch(/<foreignObject> element/);
    expect(refusal(svg('<filter id="f"><feGaussianBlur stdDeviation="9"/></filter>'))).toMatch(/<filter> element/);
    expect(refusal(svg('<pattern id="p"/>'))).toMatch(/<pattern> element/);
    expect(refusal(`<!DOCTYPE svg [<!ENTITY x "y">]>${svg('<rect/>')}`)).toMatch(/DOCTYPE or entity/);
    expect(refusal(svg('<g xml:base="http://x/"/>'))).toMatch(/an external source/);
    expect(refusal('<html><svg/></html>')).toMatch(/<html> root element/);
    expect(refusal(svg('<rect>'))).toMatch(/not well-formed XML/);
  });

  it('bounds elements, depth and the elements drawn once <use> references are expanded', () => {
    expect(refusal(svg('<rect/>'.repeat(SVG_MAX_ELEMENTS)))).toBe(`the SVG has more than ${SVG_MAX_ELEMENTS} elements`);
    expect(refusal(svg(`${'<g>'.repeat(SVG_MAX_DEPTH)}${'</g>'.repeat(SVG_MAX_DEPTH)}`))).toBe(`the SVG nests elements more than ${SVG_MAX_DEPTH} deep`);
    // 10 to the 7th: seven levels of ten <use> each, 80 elements in the file.
    expect(refusal(fanOut(7, 10))).toMatch(new RegExp(`draws more than ${SVG_MAX_DRAWN} elements`));
    expect(refusal(svg('<clipPath id="c"><rect width="1" height="1"/></clipPath>' + '<rect clip-path="url(#c)"/>'.repeat(9_000) + '<g id="big">' + '<rect/>'.repeat(5) + '</g>' + '<use href="#big"/>'.repeat(900)))).toMatch(/draws more than/);
    expect(refusal(svg('<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g>'))).toMatch(/reference loop/);
    // A second element with the same id cannot stand in for the one counted: its id is dropped.
    const twice = sanitizeSvg(svg('<g id="a"><rect/></g><g id="a">' + '<rect/>'.repeat(50) + '</g><use href="#a"/>')).markup(10, 10);
    expect(twice.match(/id="a"/g)).toHaveLength(1);
    expect(twice).toContain('<g id="a"><rect></rect></g><g><rect>');
    // Within the bounds: 3 levels of 10 (1,000 drawn) and a gradient shared by thousands of shapes.
    expect(() => sanitizeSvg(fanOut(3, 10))).not.toThrow();
    expect(() => sanitizeSvg(svg('<linearGradient id="g"><stop offset="0"/><stop offset="1"/></linearGradient>' + '<rect fill="url(#g)"/>'.repeat(9_000)))).not.toThrow();
  });

  it('writes out only allow-listed elements and attributes, escaped, drawn at the size asked', () => {
    const input = `<?xml version="1.0"?><?xml-stylesheet href="http://x/s.css"?><!-- hi -->
      <svg ${NS} xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="20mm" height="10mm" preserveAspectRatio="xMidYMid">
        <title>Logo</title><metadata><rdf/></metadata><inkscape:grid/>
        <style><![CDATA[.a > path { fill: #000; font-family: 'Sans' } /* note */]]></style>
        <g id="x&quot;y" class="a" onclick="evil()" inkscape:label="Layer" style="stroke:#000;stroke-width:2;-inkscape-font-specification:'Sans'">
          <path d="M0 0h10v5z"/><rect width="5" height="5" fill="url(#g)"/>
        </g>
        <linearGradient id="g" href="#h"><stop offset="0" stop-color="#000"/></linearGradient>
      </svg>`;
    const out = sanitizeSvg(input);
    expect(out.aspect).toBeCloseTo(2, 9);
    expect(out.markup(40, 20)).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20" viewBox="0 0 75.59055118110237 37.795275590551185" preserveAspectRatio="xMidYMid">' +
        '<style>.a &gt; path{fill:#000}</style>' +
        '<g id="x&quot;y" class="a" style="stroke:#000;stroke-width:2"><path d="M0 0h10v5z"></path><rect width="5" height="5" fill="url(#g)"></rect></g>' +
        '<linearGradient id="g" xlink:href="#h"><stop offset="0" stop-color="#000"></stop></linearGradient></svg>',
    );
  });

  it('takes its size from width and height in absolute units, else from the viewBox, else refuses', () => {
    expect(sanitizeSvg(svg('', 'width="1in" height="48pt"')).aspect).toBeCloseTo(1.5, 9);
    expect(sanitizeSvg(svg('', 'width="100%" height="100%" viewBox="0 0 30 10"')).aspect).toBe(3);
    expect(sanitizeSvg(svg('', 'viewBox="0,0,30,10"')).markup(30, 10)).toContain('viewBox="0 0 30 10"');
    expect(refusal(svg('', 'width="100%" height="5"'))).toMatch(/needs width and height attributes/);
    expect(refusal(svg('', 'width="0" height="5"'))).toMatch(/needs width and height/);
  });
});
