/** Sample label content shared by the label tests, the sample sheet and the benchmark. */
import type { LabelContent } from '../../src/labels/types.js';

export const FOOTER = 'If found, call +1 555 0100';

export const LOCATION: LabelContent = {
  kind: 'location',
  title: 'Shelf 3',
  lines: ['Garage › Shelf 3'],
  qrUrl: 'https://inventory.example.com/location/5f0c2a8e-3b1d-4c7e-9a6f-0d2b4e8c1a73',
  footer: FOOTER,
};

export const ITEM: LabelContent = {
  kind: 'item',
  title: 'Cordless drill',
  lines: ['Garage › Shelf 3 › Bin 12'],
  qrUrl: 'https://inventory.example.com/item/9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64',
  footer: FOOTER,
};

export const ASSET: LabelContent = {
  kind: 'asset',
  title: '000-001',
  lines: ['Cordless drill', 'Garage › Shelf 3 › Bin 12'],
  barcode: '000-001',
  qrUrl: 'https://inventory.example.com/a/000-001',
  footer: FOOTER,
};

export const BASIC: readonly LabelContent[] = [LOCATION, ITEM, ASSET];

const LONG =
  'Heavy-duty cordless hammer drill with two 5.0 Ah batteries, charger, side handle and depth stop in the original carrying case';

/** Long names and every script the fonts promise. */
export const STRESS: readonly { name: string; content: LabelContent }[] = [
  { name: 'long-item', content: { ...ITEM, title: LONG, lines: ['Basement › Workshop › Tall cabinet on the left › Second shelf from the top › Blue bin'] } },
  { name: 'long-asset', content: { ...ASSET, lines: [LONG, 'Basement › Workshop › Tall cabinet on the left › Second shelf'] } },
  { name: 'long-word', content: { ...LOCATION, title: 'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenkasse' } },
  { name: 'accents', content: { ...ITEM, title: 'Perceuse sans fil Élan', lines: ['Garáž › Regál 3 › Øresund ŁÓDŹ'] } },
  { name: 'greek-cyrillic', content: { ...ITEM, title: 'Δράπανο μπαταρίας', lines: ['Гараж › Полка 3 › Ящик 12'] } },
  { name: 'arabic', content: { ...ITEM, title: 'مثقاب لاسلكي', lines: ['المرآب › الرف 3 › الصندوق 12'] } },
  { name: 'persian', content: { ...LOCATION, title: 'قفسه سوم پارکینگ', lines: ['انباری › گنجه ۳'], footer: 'در صورت پیدا کردن تماس بگیرید' } },
  { name: 'hebrew', content: { ...ASSET, lines: ['מקדחה אלחוטית', 'מוסך › מדף 3 › ארגז 12'] } },
  { name: 'chinese', content: { ...ITEM, title: '无绳电钻', lines: ['车库 › 三号架 › 十二号箱'] } },
  { name: 'japanese', content: { ...ITEM, title: 'コードレスドリル（電動工具）', lines: ['ガレージ › 棚3 › ボックス12'] } },
  { name: 'korean', content: { ...ITEM, title: '무선 드릴', lines: ['차고 › 선반 3 › 상자 12'] } },
];
