/** Sample records shared by the label tests, the sample sheet and the benchmark. */
import type { LabelRecord } from '../../src/labels/index.js';

export const FOOTER = 'If found, call +1 555 0100';
const BASE = 'https://inventory.example.com';

export const LOCATION: LabelRecord = {
  kind: 'location',
  id: '5f0c2a8e-3b1d-4c7e-9a6f-0d2b4e8c1a73',
  name: 'Shelf 3',
  path: ['Garage'],
  url: `${BASE}/location/5f0c2a8e-3b1d-4c7e-9a6f-0d2b4e8c1a73`,
};

export const ITEM: LabelRecord = {
  kind: 'item',
  id: '9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64',
  name: 'Cordless drill',
  path: ['Garage', 'Shelf 3', 'Bin 12'],
  url: `${BASE}/item/9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64`,
};

export const ASSET: LabelRecord = {
  kind: 'asset',
  id: '9b7e4f10-6c2a-4d8b-b1e3-5a9c0f7d2e64',
  name: 'Cordless drill',
  path: ['Garage', 'Shelf 3', 'Bin 12'],
  assetId: 1,
  url: `${BASE}/a/000-001`,
};

export const BASIC: readonly LabelRecord[] = [LOCATION, ITEM, ASSET];

const LONG = 'Heavy-duty cordless hammer drill with two 5.0 Ah batteries, charger, side handle and depth stop in the original carrying case';
const DEEP = ['Building A', 'Basement', 'Workshop', 'Tall cabinet on the left', 'Second shelf from the top', 'Blue bin', 'Box 5'];

/** Names that break naive label engines: long, every promised script, emoji, marks, invisible characters, long numbers. */
export const HOSTILE: readonly { name: string; record: LabelRecord }[] = [
  { name: 'long', record: { ...ITEM, name: LONG, path: DEEP } },
  { name: 'long-asset', record: { ...ASSET, name: LONG, path: DEEP, assetId: 999_999_999_999, url: `${BASE}/a/999-999-999-999` } },
  { name: 'long-word', record: { ...LOCATION, name: 'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenkasse' } },
  { name: 'accents', record: { ...ITEM, name: 'Perceuse sans fil Élan · Tuốc nơ vít', path: ['Garáž', 'Regál 3', 'Øresund ŁÓDŹ'] } },
  { name: 'greek-cyrillic', record: { ...ITEM, name: 'Δράπανο μπαταρίας', path: ['Гараж', 'Полка 3', 'Ящик 12'] } },
  { name: 'arabic', record: { ...ITEM, name: 'مثقاب لاسلكي', path: ['المرآب', 'الرف 3', 'الصندوق 12'] } },
  { name: 'persian-urdu', record: { ...LOCATION, name: 'قفسه سوم پارکینگ', path: ['انباری', 'گنجه ۳'] } },
  { name: 'hebrew', record: { ...ASSET, name: 'מקדחה אלחוטית', path: ['מוסך', 'מדף 3', 'ארגז 12'] } },
  { name: 'cjk', record: { ...ITEM, name: '无绳电钻（電動工具）', path: ['车库', '三号架', '十二号箱'] } },
  { name: 'japanese-korean', record: { ...ITEM, name: 'コードレスドリル 무선 드릴', path: ['ガレージ', '棚3', '상자 12'] } },
  { name: 'thai', record: { ...ITEM, name: 'สว่านไร้สายแบตเตอรี่ลิเธียม', path: ['โรงรถ', 'ชั้น 3'] } },
  { name: 'indic', record: { ...ITEM, name: 'बिना तार की ड्रिल মেশিন', path: ['गैराज', 'তাক ৩', 'பெட்டி 12', 'అర 4'] } },
  { name: 'emoji', record: { ...ITEM, name: 'Toolbox 🧰🔧 ☎️ 👍🏽', path: ['Garage 🚗', 'Shelf ⭐ 3'] } },
  { name: 'combining', record: { ...LOCATION, name: 'Z̴̡̛̮͇̲̅̈́̓a̷̢̛̱̯̓̆l̸̨̰̈́g̵̢̛̯̈́ö̶̧̝̈́ bin', path: ['Ga\u0301ra\u0308ge'] } },
  { name: 'zero-width', record: { ...ITEM, name: '\u200b\u200d\u2060\ufeff', path: ['Garage\u200b', '\u200f'] } },
  { name: 'numbers', record: { ...ITEM, name: 'Bin 12345678901234567890', path: ['Aisle 1000000001', 'Rack 2000000002', 'Shelf 3000000003', 'Bin 4000000004'] } },
];
