/**
 * Prints the base64 PNG used as the spec's 200 example (and so served by the mock):
 * a real label, so frontend developers see what the service returns.
 *   npx tsx scripts/spec-example.ts
 */
import { builtInTemplate, renderLabel, type LabelRecord } from '../src/labels/index.js';

export const EXAMPLE_LABEL: LabelRecord = {
  kind: 'asset',
  id: '9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64',
  name: 'Cordless drill',
  path: ['Home', 'Garage', 'Shelf 3'],
  assetId: 1,
  url: 'https://inventory.example.com/a/000-001',
};

const { png } = renderLabel(EXAMPLE_LABEL, builtInTemplate('zebra-2x1-203dpi')!);
console.log(png.toString('base64'));
