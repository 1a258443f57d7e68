/**
 * Code 128 bars from jsbarcode's encoder (it picks code sets A/B/C and the
 * check digit); we only take its bar pattern and draw it at whole dots.
 */
import JsBarcode from 'jsbarcode';
import type { CanvasRenderingContext2D } from 'canvas';

/** Quiet zone each side, in modules (the spec asks for at least 10). */
export const CODE128_QUIET_MODULES = 10;

/** Bars as '1' (dark) / '0' (light) modules, without quiet zones. */
export function code128Pattern(text: string): string {
  // jsbarcode renders into any object; a plain one gets `encodings` and no DOM is needed.
  const target: { encodings?: { data: string }[] } = {};
  let valid = true;
  JsBarcode(target as unknown as SVGElement, text, {
    format: 'CODE128',
    valid: (ok: boolean) => {
      valid = ok;
    },
  });
  const bars = target.encodings?.map((e) => e.data).join('') ?? '';
  if (!valid || !/^1[01]*1$/.test(bars)) throw new RangeError(`cannot encode as Code 128: ${JSON.stringify(text)}`);
  return bars;
}

/** Width in dots of bars plus both quiet zones at a module width. */
export function code128BlockWidth(pattern: string, modulePx: number): number {
  return (pattern.length + 2 * CODE128_QUIET_MODULES) * modulePx;
}

/**
 * Calls rect(x, y, w, h) for each bar (a run of dark modules), the left quiet
 * zone beginning at x, in dots.
 */
export function code128Runs(
  pattern: string,
  x: number,
  y: number,
  modulePx: number,
  height: number,
  rect: (x: number, y: number, w: number, h: number) => void,
): void {
  const x0 = x + CODE128_QUIET_MODULES * modulePx;
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] !== '1') {
      i++;
      continue;
    }
    const start = i;
    while (i < pattern.length && pattern[i] === '1') i++;
    rect(x0 + start * modulePx, y, (i - start) * modulePx, height);
  }
}

/** Draws bars starting after the left quiet zone that begins at x. */
export function drawCode128(
  ctx: CanvasRenderingContext2D,
  pattern: string,
  x: number,
  y: number,
  modulePx: number,
  height: number,
): void {
  ctx.fillStyle = '#000';
  code128Runs(pattern, x, y, modulePx, height, (rx, ry, w, h) => ctx.fillRect(rx, ry, w, h));
}
