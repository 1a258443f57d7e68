const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The reference packer: canvas RGBA (toBuffer('raw'), BGRA) thresholded at 50% into
 * 1-bit PNG scanlines, the straightforward way. Production packs an A8 canvas
 * (src/labels/png.ts packAlpha); tests check both give the same rows.
 *
 * Thresholds canvas pixels at 50% into PNG scanlines (filter byte + packed
 * bits, 1 = white). `raw` is canvas.toBuffer('raw'): BGRA, premultiplied,
 * opaque here since we draw on white, so the green byte alone is the gray.
 * rotate90: the source is a landscape design and the output its 90° clockwise
 * rotation (output is srcHeight wide, srcWidth tall). Rotating bits here, not
 * in Cairo, keeps text hinted upright and costs nothing extra.
 */
export function packRows(raw: Buffer, srcWidth: number, srcHeight: number, rotate90: boolean): Buffer {
  const outW = rotate90 ? srcHeight : srcWidth;
  const outH = rotate90 ? srcWidth : srcHeight;
  const rowBytes = (outW + 7) >> 3;
  const out = Buffer.alloc((rowBytes + 1) * outH);
  const stride = raw.length / srcHeight;
  // Fast path: whole pixels as 32-bit words; green is bits 8-15 on a little-endian host.
  if (LITTLE_ENDIAN && raw.byteOffset % 4 === 0 && stride % 4 === 0) {
    packWords(new Uint32Array(raw.buffer, raw.byteOffset, raw.length >> 2), stride >> 2, srcHeight, rotate90, outW, outH, out);
    return out;
  }
  let o = 0;
  for (let y = 0; y < outH; y++) {
    out[o++] = 0; // filter: none
    // Offset of output (0, y) in the source, and the step to output (x+1, y).
    let p: number;
    let step: number;
    if (rotate90) {
      p = (srcHeight - 1) * stride + y * 4 + 1;
      step = -stride;
    } else {
      p = y * stride + 1;
      step = 4;
    }
    let x = 0;
    for (; x + 8 <= outW; x += 8) {
      let b = 0;
      for (let k = 0; k < 8; k++) {
        b = (b << 1) | (raw[p]! >= 128 ? 1 : 0);
        p += step;
      }
      out[o++] = b;
    }
    if (x < outW) {
      let b = 0;
      let k = 0;
      for (; x < outW; x++, k++) {
        b = (b << 1) | (raw[p]! >= 128 ? 1 : 0);
        p += step;
      }
      out[o++] = ((b << (8 - k)) | (0xff >> k)) & 0xff; // pad with white
    }
  }
  return out;
}


/** packRows on 32-bit pixels: bit 15 of a word is green >= 128. */
function packWords(u: Uint32Array, strideW: number, srcHeight: number, rotate90: boolean, outW: number, outH: number, out: Buffer): void {
  const full = outW >> 3;
  const rest = outW & 7;
  let o = 0;
  for (let y = 0; y < outH; y++) {
    out[o++] = 0; // filter: none
    const step = rotate90 ? -strideW : 1;
    let p = rotate90 ? (srcHeight - 1) * strideW + y : y * strideW;
    for (let i = 0; i < full; i++) {
      out[o++] =
        ((u[p]! >>> 8) & 0x80) |
        ((u[p + step]! >>> 9) & 0x40) |
        ((u[p + 2 * step]! >>> 10) & 0x20) |
        ((u[p + 3 * step]! >>> 11) & 0x10) |
        ((u[p + 4 * step]! >>> 12) & 0x08) |
        ((u[p + 5 * step]! >>> 13) & 0x04) |
        ((u[p + 6 * step]! >>> 14) & 0x02) |
        ((u[p + 7 * step]! >>> 15) & 0x01);
      p += 8 * step;
    }
    if (rest) {
      let b = 0xff >> rest; // pad with white
      for (let k = 0; k < rest; k++, p += step) b |= ((u[p]! >>> (8 + k)) & (0x80 >> k));
      out[o++] = b;
    }
  }
}

