/**
 * The QR mask penalty (ISO/IEC 18004 §7.8.3), scored exactly as the `qrcode`
 * package scores it: N1 runs of >= 5 same modules in a row or column (3 +
 * excess), N2 2x2 same blocks (3 each), N3 1:1:3:1:1 finder-like patterns with
 * 4 light modules on one side (40 each), N4 dark share away from 50% (10 per
 * 5% step).
 *
 * Scored for each of the 8 masks of every new QR code, it was the largest part
 * of building one (~100-200 µs a code, about a tenth of a label's render): a
 * loop per module whose branches the CPU cannot predict on a random-looking
 * symbol. Here each row and column is a pair of 32-bit words and every rule is
 * a few word operations per line (symbols up to 64 modules: version 12; larger
 * ones, which labels do not use, take the per-module loop).
 */

/** Bits set in a 32-bit word. */
function popcount(x: number): number {
  x >>>= 0;
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Low word of a line shifted right by s (0 < s < 32): bit k becomes module k + s. */
const shrLo = (lo: number, hi: number, s: number) => (lo >>> s) | (hi << (32 - s));

/** Words with the first `count` bits set (0 <= count <= 64). */
function firstBits(count: number): [number, number] {
  if (count >= 64) return [-1, -1];
  if (count >= 32) return [-1, count === 32 ? 0 : -1 >>> (64 - count)];
  return [count === 0 ? 0 : -1 >>> (32 - count), 0];
}

/** The first n - 1, n - 4 and n - 10 bits of a line of n modules: where each rule's windows may start. */
interface LineMasks {
  pairs: [number, number];
  fives: [number, number];
  elevens: [number, number];
}
const lineMasks = (n: number): LineMasks => ({ pairs: firstBits(n - 1), fives: firstBits(n - 4), elevens: firstBits(n - 10) });

/** N1 + N3 of one line (bit k = module k; 1 = dark) of n modules. */
function linePenalty(lo: number, hi: number, n: number, masks: LineMasks): number {
  // N1: a run of L >= 5 scores L - 2 = (its windows of 5 same modules: L - 4) + 2.
  const [eLo, eHi] = masks.pairs;
  const sameLo = ~(lo ^ shrLo(lo, hi, 1)) & eLo; // bit k: module k == module k + 1
  const sameHi = ~(hi ^ (hi >>> 1)) & eHi;
  const [wLo, wHi] = masks.fives;
  const s5Lo = sameLo & shrLo(sameLo, sameHi, 1) & shrLo(sameLo, sameHi, 2) & shrLo(sameLo, sameHi, 3) & wLo;
  const s5Hi = sameHi & (sameHi >>> 1) & (sameHi >>> 2) & (sameHi >>> 3) & wHi;
  const runStartsLo = s5Lo & ~(s5Lo << 1); // a window whose left neighbour is not one: a run's first
  const runStartsHi = s5Hi & ~((s5Hi << 1) | (s5Lo >>> 31));
  let points = popcount(s5Lo) + popcount(s5Hi) + 2 * (popcount(runStartsLo) + popcount(runStartsHi));

  // N3: dark-light-dark x3-light-dark with four light modules after (0x5d0), or before (0x05d).
  if (n >= 11) {
    let aLo = -1, aHi = -1, bLo = -1, bHi = -1;
    for (let j = 0; j < 11; j++) {
      const xLo = j === 0 ? lo : shrLo(lo, hi, j);
      const xHi = hi >>> j;
      if ((PATTERN_A >> j) & 1) { aLo &= xLo; aHi &= xHi; } else { aLo &= ~xLo; aHi &= ~xHi; }
      if ((PATTERN_B >> j) & 1) { bLo &= xLo; bHi &= xHi; } else { bLo &= ~xLo; bHi &= ~xHi; }
    }
    const [sLo, sHi] = masks.elevens;
    points += 40 * (popcount(aLo & sLo) + popcount(aHi & sHi) + popcount(bLo & sLo) + popcount(bHi & sHi));
  }
  return points;
}
/** Module j of each finder-like pattern at bit j: 1 0 1 1 1 0 1 0 0 0 0, and 0 0 0 0 1 0 1 1 1 0 1. */
const PATTERN_A = 0b00001011101;
const PATTERN_B = 0b10111010000;

const rowLo = new Int32Array(64);
const rowHi = new Int32Array(64);
const colLo = new Int32Array(64);
const colHi = new Int32Array(64);

/** Penalty of a symbol: m has n*n cells, row-major, 1 = dark. */
export function maskPenalty(m: Uint8Array, n: number): number {
  if (n > 64) return maskPenaltyPerModule(m, n);
  rowLo.fill(0);
  rowHi.fill(0);
  colLo.fill(0);
  colHi.fill(0);
  for (let r = 0; r < n; r++) {
    const o = r * n;
    const bitLo = r < 32 ? 1 << r : 0;
    const bitHi = r < 32 ? 0 : 1 << (r - 32);
    let lo = 0;
    let hi = 0;
    for (let c = 0; c < n; c++) {
      const v = m[o + c]!;
      if (c < 32) lo |= v << c;
      else hi |= v << (c - 32);
      // -v is all ones for a dark module, zero for a light one: no branch on the data.
      colLo[c]! |= bitLo & -v;
      colHi[c]! |= bitHi & -v;
    }
    rowLo[r] = lo;
    rowHi[r] = hi;
  }
  const masks = lineMasks(n);
  let points = 0;
  let dark = 0;
  for (let i = 0; i < n; i++) {
    points += linePenalty(rowLo[i]!, rowHi[i]!, n, masks) + linePenalty(colLo[i]!, colHi[i]!, n, masks);
    dark += popcount(rowLo[i]!) + popcount(rowHi[i]!);
  }
  // N2: 2x2 blocks of one colour, over each pair of neighbouring rows.
  const [pLo, pHi] = masks.pairs;
  let blocks = 0;
  for (let r = 0; r < n - 1; r++) {
    const aLo = rowLo[r]!, aHi = rowHi[r]!;
    const vLo = ~(aLo ^ rowLo[r + 1]!); // bit k: (r, k) == (r + 1, k)
    const vHi = ~(aHi ^ rowHi[r + 1]!);
    const hLo = ~(aLo ^ shrLo(aLo, aHi, 1)); // bit k: (r, k) == (r, k + 1)
    const hHi = ~(aHi ^ (aHi >>> 1));
    blocks += popcount(vLo & shrLo(vLo, vHi, 1) & hLo & pLo) + popcount(vHi & (vHi >>> 1) & hHi & pHi);
  }
  points += 3 * blocks;
  points += 10 * Math.abs(Math.ceil((dark * 100) / (n * n) / 5) - 10);
  return points;
}

/** The same score, module by module: symbols over 64 modules, and the reference the tests hold the words to. */
export function maskPenaltyPerModule(m: Uint8Array, n: number): number {
  let points = 0;
  let dark = 0;
  for (let a = 0; a < n; a++) {
    // Row a and column a together.
    let lastR = -1;
    let runR = 0;
    let bitsR = 0;
    let lastC = -1;
    let runC = 0;
    let bitsC = 0;
    const rowStart = a * n;
    for (let b = 0; b < n; b++) {
      const vr = m[rowStart + b]!;
      dark += vr;
      if (vr === lastR) runR++;
      else {
        if (runR >= 5) points += runR - 2;
        lastR = vr;
        runR = 1;
      }
      bitsR = ((bitsR << 1) & 0x7ff) | vr;
      if (b >= 10 && (bitsR === 0x5d0 || bitsR === 0x05d)) points += 40;

      const vc = m[b * n + a]!;
      if (vc === lastC) runC++;
      else {
        if (runC >= 5) points += runC - 2;
        lastC = vc;
        runC = 1;
      }
      bitsC = ((bitsC << 1) & 0x7ff) | vc;
      if (b >= 10 && (bitsC === 0x5d0 || bitsC === 0x05d)) points += 40;
    }
    if (runR >= 5) points += runR - 2;
    if (runC >= 5) points += runC - 2;
  }
  let blocks = 0;
  for (let r = 0; r < n - 1; r++) {
    const o = r * n;
    for (let c = 0; c < n - 1; c++) {
      const s = m[o + c]! + m[o + c + 1]! + m[o + n + c]! + m[o + n + c + 1]!;
      if (s === 0 || s === 4) blocks++;
    }
  }
  points += 3 * blocks;
  points += 10 * Math.abs(Math.ceil((dark * 100) / (n * n) / 5) - 10);
  return points;
}
