/**
 * Prints the base64 PNG used as the spec's 200 example (and so served by the mock):
 * a real label, so frontend developers see what the service returns.
 *   npx tsx scripts/spec-example.ts
 */
import { renderLabel } from '../src/labels/index.js';

export const EXAMPLE_LABEL = {
  kind: 'asset' as const,
  title: '000-001',
  lines: ['Cordless drill', 'Home › Garage › Shelf 3'],
  qrUrl: 'https://inventory.example.com/a/000-001',
  barcode: '000-001',
};

const { png } = renderLabel(EXAMPLE_LABEL, 'zebra-2x1-203dpi');
console.log(png.toString('base64'));
