/**
 * A printer and a scanner, simulated: what a label goes through between our
 * PNG and a scanner's decoder. Images are gray (0 = ink, 255 = paper) as
 * Float32 arrays. Print effects work on the printer's dots (a dead heating
 * element, ink spread); scan effects on the picture the scanner sees (optics
 * blur, a tilted label, a scanner at half the print resolution, paper dust).
 * Deterministic: speckle uses a seeded generator.
 */
import { getDot, type MonoBitmap } from './mono-png.js';

export interface Gray {
  width: number;
  height: number;
  data: Float32Array;
}

export function fromDots(d: MonoBitmap): Gray {
  const data = new Float32Array(d.width * d.height);
  for (let y = 0; y < d.height; y++) for (let x = 0; x < d.width; x++) data[y * d.width + x] = getDot(d, x, y) ? 0 : 255;
  return { width: d.width, height: d.height, data };
}

/**
 * A camera's gray for the red ink of a two-colour roll (Brother DK-22251): its red, about
 * sRGB (230, 40, 50), is about 100 in Rec. 601 luma. A phone camera and a 2D imager see it
 * so; a red-light laser scanner sees it as paper (docs/labels-and-templates.md says so).
 */
export const RED_INK_GRAY = 100;

/** A two-colour label as printed: black dots ink, red dots the red ink's gray (RED_INK_GRAY), the rest paper. */
export function fromInks(black: MonoBitmap, red: MonoBitmap | null): Gray {
  const g = fromDots(black);
  if (!red) return g;
  for (let y = 0; y < red.height; y++) for (let x = 0; x < red.width; x++) if (getDot(red, x, y) && !getDot(black, x, y)) g.data[y * g.width + x] = RED_INK_GRAY;
  return g;
}

/** A region of an image (clamped to it). */
export function crop(g: Gray, x0: number, y0: number, x1: number, y1: number): Gray {
  x0 = Math.max(0, Math.floor(x0));
  y0 = Math.max(0, Math.floor(y0));
  x1 = Math.min(g.width, Math.ceil(x1));
  y1 = Math.min(g.height, Math.ceil(y1));
  const width = x1 - x0;
  const height = y1 - y0;
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) data.set(g.data.subarray((y0 + y) * g.width + x0, (y0 + y) * g.width + x1), y * width);
  return { width, height, data };
}

/** The image on white paper: `left` and `top` dots of it before the image, `right` and `bottom` after (a label's margins, a scanner's framing). */
export function onPaper(g: Gray, left: number, top: number, right = left, bottom = top): Gray {
  const width = g.width + left + right;
  const data = new Float32Array(width * (g.height + top + bottom)).fill(255);
  for (let y = 0; y < g.height; y++) data.set(g.data.subarray(y * g.width, (y + 1) * g.width), (y + top) * width + left);
  return { width, height: g.height + top + bottom, data };
}

/** The image turned 90° clockwise (to stand a linear code's bars up for a decoder). */
export function turn90(g: Gray): Gray {
  const out = new Float32Array(g.data.length);
  const w = g.height;
  for (let y = 0; y < g.height; y++) for (let x = 0; x < g.width; x++) out[x * w + (w - 1 - y)] = g.data[y * g.width + x]!;
  return { width: w, height: g.width, data: out };
}

/** One dead heating element: print-head position x (a PNG column, across the head) never prints. */
export function deadDot(g: Gray, x: number): Gray {
  const data = g.data.slice();
  for (let y = 0; y < g.height; y++) data[y * g.width + x] = 255;
  return { ...g, data };
}

/** Ink spread: every printed dot also darkens its neighbours within `px` (a disc: the cross for 1 px). */
export function dotGain(g: Gray, px = 1): Gray {
  const { width: w, height: h } = g;
  const data = g.data.slice();
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (g.data[y * w + x]! >= 128) continue;
      for (let dy = -px; dy <= px; dy++) {
        for (let dx = -px; dx <= px; dx++) {
          if (dx * dx + dy * dy > px * px) continue;
          const xx = x + dx;
          const yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < w && yy < h) data[yy * w + xx] = 0;
        }
      }
    }
  }
  return { ...g, data };
}

/** Gaussian blur (separable, edges clamped): optics out of focus. */
export function blur(g: Gray, sigma: number): Gray {
  const r = Math.ceil(3 * sigma);
  const k = new Float32Array(2 * r + 1);
  let sum = 0;
  for (let i = -r; i <= r; i++) sum += k[i + r] = Math.exp(-(i * i) / (2 * sigma * sigma));
  for (let i = 0; i < k.length; i++) k[i]! /= sum;
  const { width: w, height: h } = g;
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += k[i + r]! * g.data[row + Math.min(w - 1, Math.max(0, x + i))]!;
      tmp[row + x] = s;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += k[i + r]! * tmp[Math.min(h - 1, Math.max(0, y + i)) * w + x]!;
      out[y * w + x] = s;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * A scanner at a fraction of the print resolution (area average; 0.5: each
 * scan pixel sees 2 x 2 dots). `phase` shifts the scanner's pixel grid by that
 * many dots (one number: on both axes; a pair: [across, along]): a scanner's
 * grid has no relation to the printer's, and a code that reads at one phase
 * only reads by luck.
 */
export function downscale(g: Gray, factor: number, phase: number | [number, number] = 0): Gray {
  const [px, py] = typeof phase === 'number' ? [phase, phase] : phase;
  if (px || py) g = crop(g, px, py, g.width, g.height);
  const width = Math.max(1, Math.floor(g.width * factor));
  const height = Math.max(1, Math.floor(g.height * factor));
  const data = new Float32Array(width * height);
  const step = 1 / factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      let n = 0;
      for (let yy = Math.floor(y * step); yy < Math.min(g.height, Math.floor((y + 1) * step)); yy++) {
        for (let xx = Math.floor(x * step); xx < Math.min(g.width, Math.floor((x + 1) * step)); xx++) {
          s += g.data[yy * g.width + xx]!;
          n++;
        }
      }
      data[y * width + x] = n ? s / n : 255;
    }
  }
  return { width, height, data };
}

/** mulberry32: a small seeded generator, so a failure can be reproduced. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Dust and voids: salt-and-pepper noise as scikit-image's random_noise(mode='s&p')
 * defines it (a share of the pixels replaced by paper or ink, half each), then
 * seen through the scanner's optics (blur).
 */
export function speckle(g: Gray, share: number, opticsSigma: number, seed = 1): Gray {
  const next = seededRandom(seed);
  const data = g.data.slice();
  for (let i = 0; i < data.length; i++) if (next() < share) data[i] = next() < 0.5 ? 0 : 255;
  return blur({ ...g, data }, opticsSigma);
}

/** The label tilted by `degrees` about its centre on white paper (bilinear; the canvas grows to hold it all). */
export function rotate(g: Gray, degrees: number): Gray {
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const width = Math.ceil(Math.abs(g.width * cos) + Math.abs(g.height * sin)) + 2;
  const height = Math.ceil(Math.abs(g.width * sin) + Math.abs(g.height * cos)) + 2;
  const data = new Float32Array(width * height);
  const [cx, cy, ox, oy] = [(g.width - 1) / 2, (g.height - 1) / 2, (width - 1) / 2, (height - 1) / 2];
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= g.width || y >= g.height ? 255 : g.data[y * g.width + x]!);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Inverse mapping: where in the source this output pixel comes from.
      const sx = cos * (x - ox) + sin * (y - oy) + cx;
      const sy = -sin * (x - ox) + cos * (y - oy) + cy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      data[y * width + x] =
        at(x0, y0) * (1 - fx) * (1 - fy) + at(x0 + 1, y0) * fx * (1 - fy) + at(x0, y0 + 1) * (1 - fx) * fy + at(x0 + 1, y0 + 1) * fx * fy;
    }
  }
  return { width, height, data };
}

/** RGBA bytes for a decoder. */
export function toImageData(g: Gray): { data: Uint8ClampedArray; width: number; height: number } {
  const data = new Uint8ClampedArray(g.width * g.height * 4);
  for (let i = 0; i < g.data.length; i++) {
    const v = g.data[i]!;
    data[4 * i] = data[4 * i + 1] = data[4 * i + 2] = v;
    data[4 * i + 3] = 255;
  }
  return { data, width: g.width, height: g.height };
}

/** Each single degradation of the robustness suite, by name (the dead dot is swept separately: it has a position). */
export const SINGLE: Record<string, (g: Gray) => Gray> = {
  'downscale 0.5': (g) => downscale(g, 0.5),
  'downscale 0.5 (grid +1 dot)': (g) => downscale(g, 0.5, 1),
  // One axis on the printer's grid and the other off it: a 4-dot DataMatrix failed only here (24 November).
  'downscale 0.5 (grid +1 dot across)': (g) => downscale(g, 0.5, [1, 0]),
  'downscale 0.5 (grid +1 dot along)': (g) => downscale(g, 0.5, [0, 1]),
  'blur 1.5': (g) => blur(g, 1.5),
  'dot gain 1 px': (g) => dotGain(g, 1),
  'speckle 3%': (g) => speckle(g, 0.03, 0.7),
  'rotate 4°': (g) => rotate(g, 4),
};

/**
 * Everything at once, in the order a label meets it: printed with a dead
 * element at head position `dead` and 1 px ink spread, 3% dust and voids on
 * the label (seen through 0.7 dots of blur), tilted 4°, seen through the
 * scanner's optics (blur 1.5 dots) and sampled at half the print resolution.
 */
export function combined(g: Gray, dead: number | undefined): Gray {
  let out = dead === undefined ? g : deadDot(g, dead);
  out = dotGain(out, 1);
  out = speckle(out, 0.03, 0.7);
  out = rotate(out, 4);
  out = blur(out, 1.5);
  return downscale(out, 0.5);
}
