/**
 * A small, realistic demo inventory for first runs, screenshots and label tests.
 * Ids are fixed UUIDs so demo labels (and their QR codes) are identical across
 * installs; names cover several scripts, right-to-left text and a very long name
 * to exercise label layout.
 */
import type { RecordInput } from './types.js';

/** Location ids, exported so tests and docs can refer to them by meaning. */
export const DEMO_LOCATIONS = {
  home: '22cd8bb1-7b6b-4505-9fab-dbb16c29f783',
  garage: '46e4af62-b573-4f67-bb4c-d203c5e54399',
  shelf3: '80cb3e71-fb14-40fb-981c-e86eaa33bea1',
  bin12: 'b562892a-90d4-4a42-8214-1473c40519de',
  office: 'b19b3bd7-20ee-47b5-9341-f9157206b0f9',
  kitchen: '59994282-b882-4451-a605-eab2cb683c8e',
  pantry: 'fcddd212-4769-435d-b8ac-171a11380423',
  workshop: 'eb72c4c9-1daf-4b50-8e0a-30e296d9f3b2',
  workbench: '24f59a69-b79b-4609-81f3-98e1d7f65fac',
} as const;

/** Item ids the demo banner and the README's examples use. */
export const DEMO_ITEMS = {
  /** Дрель (a corded drill), asset 000-001, on Shelf 3. */
  drill: '4f7c17fb-0777-4b60-bb6f-2007ef8f9de6',
  /** Label printer Brother QL-820NWB, asset 000-009, in the Office. */
  labelPrinter: '4c96f1fd-91c6-49a9-9c55-28d02fec5836',
} as const;

const L = DEMO_LOCATIONS;

const location = (id: string, name: string, parentId: string | null, description = ''): RecordInput => ({
  kind: 'location', id, name, description, parentId, assetId: null,
});

const item = (id: string, assetId: number, name: string, parentId: string | null, description = ''): RecordInput => ({
  kind: 'item', id, name, description, parentId, assetId,
});

export function demoRecords(): RecordInput[] {
  return [
    location(L.home, 'Home', null, 'Main house'),
    location(L.garage, 'Garage', L.home),
    location(L.shelf3, 'Shelf 3', L.garage, 'Metal rack, left wall'),
    location(L.bin12, 'Bin 12', L.shelf3, 'Blue stacking bin'),
    location(L.office, 'Office', L.home),
    location(L.kitchen, 'Kitchen', L.home),
    location(L.pantry, 'Pantry', L.kitchen),
    location(L.workshop, 'Workshop', null, 'Detached building behind the garden'),
    location(L.workbench, 'Workbench', L.workshop),

    item('4f7c17fb-0777-4b60-bb6f-2007ef8f9de6', 1, 'Дрель', L.shelf3, 'Corded drill, 750 W'),
    item('8cedfeb1-0781-41e9-ab4a-d3543eb65aa9', 2, 'مفك براغي', L.bin12, 'Screwdriver'),
    item('1d287597-9442-4a40-87b8-4d50ecbcb7cb', 3, '電動ドリル', L.workbench, 'Cordless drill, 18 V'),
    item('04bda70f-5858-4121-9040-8865c61d0248', 4, '공구 상자', L.garage, 'Toolbox'),
    item('dfca013f-b549-4625-a2b0-964b411db756', 5, 'Κατσαβίδι', L.bin12, 'Screwdriver'),
    item('7c77c96e-220e-4568-986a-5b038c75bf9b', 6, 'מברגה', L.workshop, 'Impact driver'),
    item('be6dff93-eb20-4dc7-8038-f31cef7f4148', 7, '螺丝刀套装', L.workbench, 'Screwdriver set, 24 pieces'),
    // Persian with a zero-width non-joiner (U+200C) between پیچ and گوشتی, as it is really written.
    item('4fb7c5f8-2ec2-470f-96bc-9d0174f8920a', 8, 'پیچ‌گوشتی', L.office, 'Screwdriver'),
    item('4c96f1fd-91c6-49a9-9c55-28d02fec5836', 9, 'Label printer Brother QL-820NWB', L.office),
    item('6b57a966-7e04-4540-8672-f6364bccaaca', 10, 'Laptop ThinkPad X1 Carbon', L.office, 'Serial PF-3K2ZQ9'),
    item('c9ba3d3c-9c89-4fd7-bdf8-8c9cc2bba3c8', 11, 'Flour, 5 kg', L.pantry, 'Best before 2026-03'),
    item('6fb5ea70-5764-4f88-b8ac-4f11a6cf7351', 12, 'Tomato cans (12 × 400 g)', L.pantry),
    item(
      '3d9460c0-e2eb-45c4-8610-cba13adcb1cf',
      13,
      'Heavy-duty extension cord reel, 50 m, four outlets with individual switches, thermal cut-out, ' +
        'IP44 splash protection and orange H07RN-F 3G1.5 rubber cable, for garden and workshop use',
      L.shelf3,
    ),
    item('0a5e7d3c-41b2-4c8e-9f6a-2b7d1e9c4f10', 14, 'Camping lantern (lent to a neighbour)', null, 'Not in any location right now'),
  ];
}
