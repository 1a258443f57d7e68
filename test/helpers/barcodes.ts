/** The barcode reader lives with the save-time scan check (src/api/barcode-reader.ts). */
export * from '../../src/api/barcode-reader.js';
