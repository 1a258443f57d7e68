/**
 * Barcode decoding for tests, offline: zxing-wasm loads its wasm from the
 * installed package (by default it would fetch it from a CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

const require = createRequire(import.meta.url);
let ready: Promise<unknown> | undefined;

function prepare(): Promise<unknown> {
  ready ??= Promise.resolve(
    prepareZXingModule({
      overrides: { wasmBinary: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')).buffer as ArrayBuffer },
      fireImmediately: true,
    }),
  );
  return ready;
}

export interface DecodedBarcode {
  /** zxing's format name, e.g. 'QRCode', 'Code128'. */
  format: string;
  text: string;
}

export type Format = 'QRCode' | 'DataMatrix' | 'Code128';

/** Every QR code, DataMatrix and Code 128 symbol found in a PNG or an RGBA image (any orientation). */
export async function decodeBarcodes(
  image: Buffer | { data: Uint8ClampedArray; width: number; height: number },
  opts: {
    formats?: Format[];
    tryRotate?: boolean;
    tryDenoise?: boolean;
    /** 'HRI' (zxing's default) writes control characters as <SOH> etc.; 'Plain' gives the text as encoded. */
    textMode?: 'HRI' | 'Plain';
    /** Text without an ECI: zxing guesses its character set (e.g. Shift_JIS for some bytes 128-255) unless told. */
    characterSet?: 'ISO8859_1';
  } = {},
): Promise<DecodedBarcode[]> {
  await prepare();
  const input = Buffer.isBuffer(image) ? new Uint8Array(image) : ({ ...image, colorSpace: 'srgb' } as unknown as ImageData);
  const results = await readBarcodes(input, {
    formats: opts.formats ?? ['QRCode', 'DataMatrix', 'Code128'],
    tryHarder: true,
    tryRotate: opts.tryRotate ?? true,
    // Morphological closing before 2D detection (zxing's own option): bridges a one-dot white line.
    tryDenoise: opts.tryDenoise ?? false,
    maxNumberOfSymbols: 8,
    textMode: opts.textMode ?? 'HRI',
    ...(opts.characterSet ? { characterSet: opts.characterSet } : {}),
  });
  return results.filter((r) => r.isValid).map((r) => ({ format: r.format, text: r.text }));
}
