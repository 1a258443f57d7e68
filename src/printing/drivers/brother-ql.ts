/**
 * Brother QL raster (over raw TCP 9100 here; on a USB device, device.ts), byte for byte as the brother_ql project
 * (pklaus/brother_ql: raster.py, conversion.py, labels.py, models.py)
 * documents it. The printer has no notion of images: it gets one command per
 * print-head line, mirrored, with the label's dots at a fixed offset.
 *
 * Two-colour (the red/black DK-22251 roll, QL-800/810W/820NWB): ESC i K bit 0 set, and
 * each head line sent twice, `77 01 nn` the black dots then `77 02 nn` the red ones, no
 * dot in both (pklaus/brother_ql raster.py add_raster_data, conversion.py; LPrint's
 * BROTHER.md). Every job on that roll goes in this mode, a label without red too: the
 * printer refuses a black-only job on it (brother_ql issues #52, #58, PR #22).
 */
import { decodeBlackRedPng, decodeMonoPng, getDot, type MonoBitmap } from '../../labels/index.js';
import { findStock, printsRed, STOCKS } from '../../labels/stock.js';
import { readQlStatus } from '../status/brother-ql.js';
import type { PrinterStatus } from '../status/types.js';
import { sendRaw, type RawSocketOptions } from './raw-socket.js';
import { PermanentPrintError, type PrintDocument, type PrinterDriver } from './types.js';

/** What the raster needs of a stock: its Brother QL media data (stock.ts) and printable dots. */
export interface QlMedia {
  /** Tape width and label length in mm (length 0 on continuous tape), as sent in ESC i z. */
  widthMm: number;
  lengthMm: number;
  dieCut: boolean;
  /** Printable width in dots (the PNG's width). */
  printableWidth: number;
  /** Printable length in dots on die-cut labels (the PNG's height); 0 on continuous tape. */
  printableLength: number;
  /** Blank dots between the right edge of the print head and the image (before mirroring: its left edge). */
  offsetRight: number;
  /** The red/black roll (Stock.colours has red): every job in two-colour mode. */
  twoColour: boolean;
}

/** The Brother QL media of a stock (by canonical name or alias); undefined if it is not a Brother QL stock. */
export function qlMedia(stockName: string): QlMedia | undefined {
  const stock = findStock(stockName);
  const ql = stock?.brotherQl;
  if (!stock || !ql) return undefined;
  return {
    widthMm: ql.widthMm,
    lengthMm: ql.lengthMm,
    dieCut: ql.lengthMm > 0,
    printableWidth: stock.widthDots,
    printableLength: stock.lengthDots ?? 0,
    offsetRight: ql.offsetRight,
    twoColour: printsRed(stock),
  };
}

/** Media of every Brother QL stock, by canonical name. */
export const QL_MEDIA: Readonly<Record<string, QlMedia>> = Object.freeze(
  Object.fromEntries(STOCKS.filter((s) => s.brotherQl).map((s) => [s.name, Object.freeze(qlMedia(s.name)!)])),
);

export interface QlModel {
  /** 90 (720 dots) on most models, 162 (1296 dots) on the 102 mm wide QL-1050/1060N/1100 family. */
  bytesPerRow: number;
  /** Extra right offset in dots (brother_ql additional_offset_r). */
  extraOffset: number;
  compression: boolean;
  modeSetting: boolean;
  cutting: boolean;
  /** Shortest raster the printer accepts, in lines (continuous tape is padded up to it). */
  minLines: number;
  /** Prints the red/black roll (two-colour raster): the QL-800 family only (brother_ql models.py two_color). */
  twoColour: boolean;
}

const m = (bytesPerRow: number, extraOffset: number, compression: boolean, modeSetting: boolean, cutting: boolean, minLines: number, twoColour = false): QlModel =>
  Object.freeze({ bytesPerRow, extraOffset, compression, modeSetting, cutting, minLines, twoColour });

// brother_ql models.py (the QL-1100 family from its maintained fork: 162-byte rows like the QL-1050, 301-line minimum).
export const QL_MODELS: Readonly<Record<string, QlModel>> = Object.freeze({
  'QL-500': m(90, 0, false, false, false, 295),
  'QL-550': m(90, 0, false, false, true, 295),
  'QL-560': m(90, 0, false, false, true, 295),
  'QL-570': m(90, 0, false, false, true, 150),
  'QL-580N': m(90, 0, true, true, true, 150),
  'QL-650TD': m(90, 0, true, true, true, 295),
  'QL-700': m(90, 0, false, false, true, 150),
  'QL-710W': m(90, 0, true, true, true, 150),
  'QL-720NW': m(90, 0, true, true, true, 150),
  'QL-800': m(90, 0, false, true, true, 150, true),
  'QL-810W': m(90, 0, true, true, true, 150, true),
  'QL-820NWB': m(90, 0, true, true, true, 150, true),
  'QL-1050': m(162, 44, true, true, true, 295),
  'QL-1060N': m(162, 44, true, true, true, 295),
  'QL-1100': m(162, 44, true, true, true, 301),
  'QL-1100NWB': m(162, 44, true, true, true, 301),
  'QL-1110NWB': m(162, 44, true, true, true, 301),
  'QL-1115NWB': m(162, 44, true, true, true, 301),
});

/**
 * Model used when the URI names none: plain uncompressed commands every
 * networked QL accepts; 102 mm stock implies a QL-1050/1060N. Two-colour is
 * allowed (only the QL-800 family takes the red/black roll at all).
 */
export function defaultQlModel(media: QlMedia): QlModel {
  return media.widthMm === 102 ? QL_MODELS['QL-1060N']! : m(90, 0, false, true, true, 150, true);
}

export interface QlOptions {
  model?: QlModel;
  /** PackBits-compress rows (M 02); default: what the model supports. */
  compress?: boolean;
  /** The red dots (two-colour media only; same size as the bitmap). Red wins where both have a dot. */
  red?: MonoBitmap | null;
}

/** The complete QL raster job for one label. Throws PermanentPrintError when the bitmap does not fit the media. */
export function encodeQlRaster(bitmap: MonoBitmap, media: QlMedia, opts: QlOptions = {}): Buffer {
  const model = opts.model ?? defaultQlModel(media);
  const compress = opts.compress ?? model.compression;
  const headDots = model.bytesPerRow * 8;
  const offset = media.offsetRight + model.extraOffset;
  const red = opts.red ?? null;
  if (bitmap.width !== media.printableWidth || (media.dieCut && bitmap.height !== media.printableLength)) {
    const want = media.dieCut ? `${media.printableWidth}x${media.printableLength}` : `${media.printableWidth} dots wide`;
    throw new PermanentPrintError(`image is ${bitmap.width}x${bitmap.height} dots but this Brother QL label needs ${want}`);
  }
  if (red && !media.twoColour) throw new PermanentPrintError(`a label with red needs the red/black roll; this ${media.widthMm} mm stock prints black only`);
  if (red && (red.width !== bitmap.width || red.height !== bitmap.height)) throw new PermanentPrintError('the red plane is not the size of the black one');
  if (media.twoColour && !model.twoColour) throw new PermanentPrintError('this Brother QL model cannot print the red/black roll (QL-800, QL-810W and QL-820NWB only)');
  if (offset + bitmap.width > headDots) {
    throw new PermanentPrintError(`a ${media.widthMm} mm label does not fit this printer's ${headDots}-dot print head`);
  }
  const lines = media.dieCut ? bitmap.height : Math.max(bitmap.height, model.minLines);

  const parts: Buffer[] = [];
  const push = (...bytes: number[]): void => void parts.push(Buffer.from(bytes));
  parts.push(Buffer.alloc(200)); // invalidate: flush any half-received command
  push(0x1b, 0x40); // ESC @ initialize
  if (model.modeSetting) push(0x1b, 0x69, 0x61, 0x01); // ESC i a 01: raster mode
  // ESC i z: valid flags (0x80 | type, width, length, quality), type, width, length, lines (LE32), page 0, 0.
  const media4 = Buffer.alloc(4);
  media4.writeUInt32LE(lines);
  push(0x1b, 0x69, 0x7a, 0xce, media.dieCut ? 0x0b : 0x0a, media.widthMm, media.lengthMm);
  parts.push(media4);
  push(0x00, 0x00);
  if (model.cutting) {
    push(0x1b, 0x69, 0x4d, 0x40); // ESC i M: autocut on
    push(0x1b, 0x69, 0x41, 0x01); // ESC i A: cut every 1 label
    push(0x1b, 0x69, 0x4b, 0x08 | (media.twoColour ? 0x01 : 0)); // ESC i K: expanded mode, cut at end (+ two-colour)
  } else if (media.twoColour) push(0x1b, 0x69, 0x4b, 0x01); // ESC i K: two-colour
  const margin = media.dieCut ? 0 : 35; // feed margin in dots
  push(0x1b, 0x69, 0x64, margin & 0xff, margin >> 8); // ESC i d
  if (compress) push(0x4d, 0x02); // M 02: TIFF PackBits

  const row = Buffer.alloc(model.bytesPerRow);
  const redRow = Buffer.alloc(model.bytesPerRow);
  // Mirror left-right: image dot x lands at head position offset + (width - 1 - x).
  const headRow = (out: Buffer, plane: MonoBitmap, y: number, unless: MonoBitmap | null): void => {
    out.fill(0);
    if (y >= plane.height) return;
    for (let x = 0; x < plane.width; x++) {
      if (getDot(plane, x, y) && !(unless && getDot(unless, x, y))) {
        const p = offset + plane.width - 1 - x;
        out[p >> 3] = out[p >> 3]! | (0x80 >> (p & 7));
      }
    }
  };
  const line = (prefix: number[], data: Buffer): void => {
    const bytes = compress ? packBits(data) : Buffer.from(data);
    push(...prefix, bytes.length);
    parts.push(bytes);
  };
  for (let y = 0; y < lines; y++) {
    if (!media.twoColour) {
      headRow(row, bitmap, y, null);
      line([0x67, 0x00], row); // g 00 n
      continue;
    }
    // Red dots leave the black plane: a dot is one ink.
    headRow(row, bitmap, y, red);
    line([0x77, 0x01], row); // w 01 n: first colour, black
    if (red) headRow(redRow, red, y, null);
    else redRow.fill(0);
    line([0x77, 0x02], redRow); // w 02 n: second colour, red
  }
  push(0x1a); // print, last page
  return Buffer.concat(parts);
}

/** TIFF PackBits: runs of 2..128 equal bytes as (257 - n, byte), literals as (n - 1, bytes). */
export function packBits(input: Buffer): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < input.length) {
    let run = 1;
    while (i + run < input.length && run < 128 && input[i + run] === input[i]) run++;
    if (run >= 2) {
      out.push(257 - run, input[i]!);
      i += run;
      continue;
    }
    const start = i;
    while (i < input.length && i - start < 128 && !(i + 1 < input.length && input[i] === input[i + 1])) i++;
    out.push(i - start - 1, ...input.subarray(start, i));
  }
  return Buffer.from(out);
}

/** Where a QL's status is read: SNMP (status/brother-ql.ts), UDP 161 and community "public" unless set. */
export interface QlSnmpOptions {
  port?: number;
  community?: string;
}

/** Throws when `modelName` is no Brother QL model we know (undefined: the default, plain commands). */
export function checkQlModel(modelName: string | undefined): void {
  if (modelName !== undefined && !QL_MODELS[modelName]) {
    throw new Error(`unknown Brother QL model "${modelName}" (known: ${Object.keys(QL_MODELS).join(', ')})`);
  }
}

/**
 * The bytes a Brother QL gets for one document, whatever carries them (raw TCP here, a
 * USB device in device.ts). PermanentPrintError when the model cannot print its stock.
 */
export function qlJob(doc: PrintDocument, modelName: string | undefined): Buffer {
  const media = qlMedia(doc.stockName);
  if (!media) throw new PermanentPrintError(`template "${doc.stockName}" is not a Brother QL label`);
  const model = modelName ? QL_MODELS[modelName] : undefined;
  if (model && media.widthMm === 102 && model.bytesPerRow !== 162) {
    throw new PermanentPrintError(`${modelName} cannot print 102 mm labels (QL-1050/1060N/1100/1110NWB/1115NWB only)`);
  }
  if (model && media.twoColour && !model.twoColour) {
    throw new PermanentPrintError(`${modelName} cannot print the red/black roll (QL-800, QL-810W and QL-820NWB only)`);
  }
  let planes: { black: MonoBitmap; red: MonoBitmap | null };
  try {
    // On the red/black roll a label's red marks are its own plane; on any other the label is black only.
    planes = media.twoColour ? decodeBlackRedPng(doc.png) : { black: decodeMonoPng(doc.png), red: null };
  } catch (e) {
    throw new PermanentPrintError(`cannot print ${doc.stockName}: ${(e as Error).message}`, { cause: e });
  }
  return encodeQlRaster(planes.black, media, { model, red: planes.red });
}

export class BrotherQlDriver implements PrinterDriver {
  readonly kind = 'brother-ql' as const;
  readonly target: string;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly modelName?: string,
    private readonly socketOpts: RawSocketOptions = {},
    private readonly snmp: QlSnmpOptions = {},
  ) {
    checkQlModel(modelName);
    this.target = `Brother ${modelName ?? 'QL'} at ${host}:${port}`;
  }

  async print(doc: PrintDocument, signal: AbortSignal): Promise<void> {
    await sendRaw(this.host, this.port, qlJob(doc, this.modelName), signal, this.socketOpts, this.target);
  }

  /** The printer's 32-byte status over SNMP (the raw port does not answer); see status/brother-ql.ts. */
  status(signal: AbortSignal): Promise<PrinterStatus> {
    return readQlStatus({ host: this.host, rawPort: this.port, snmpPort: this.snmp.port, community: this.snmp.community }, signal);
  }
}
