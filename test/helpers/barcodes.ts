/** The barcode reader lives with the save-time scan check (src/labels/barcode-reader.ts). */
export * from '../../src/labels/barcode-reader.js';
