/**
 * The element designer's geometry and undo history (studio/src/canvas-math.ts, undo.ts),
 * without a page: fitting to a screen, moving and resizing inside the printable area,
 * snapping to the area and to other elements, the keys, undo steps, and the design as the
 * service takes it (studio/src/elements.ts, element-wire.ts).
 */
import { describe, expect, it } from 'vitest';
import { fitScale, guidesFor, keyAction, moveBox, pxToMm, resizeBox, scaleInWords, snapMove, snapResize, PX_PER_MM } from '../../studio/src/canvas-math.js';
import { fromWire, parseImport, problemInWords, scanCheckWords, toWire } from '../../studio/src/element-wire.js';
import { elementsFromLines } from '../../studio/src/lines-to-elements.js';
import { movedWords, newElement, type ElementDesign } from '../../studio/src/elements.js';
import { History } from '../../studio/src/undo.js';

const AREA = { width: 58.9, height: 22.9 };

describe('scale', () => {
  it('is true size when the label fits, smaller when it does not', () => {
    expect(fitScale(58.9, 1200)).toBe(1);
    // 102 mm is 385.5 px: on a 320 px wide space it is shown at 83 %.
    expect(fitScale(102, 320)).toBeCloseTo(320 / (102 * PX_PER_MM), 6);
    expect(scaleInWords(1)).toBe('true size');
    expect(scaleInWords(fitScale(102, 320))).toBe('shown at 83 % of true size');
  });

  it('turns pointer pixels into mm at the scale shown', () => {
    expect(pxToMm(PX_PER_MM * 4, 1)).toBe(4);
    expect(pxToMm(PX_PER_MM * 2, 0.5)).toBe(4);
  });
});

describe('moving and resizing', () => {
  const box = { x: 10, y: 5, width: 20, height: 8 };

  it('moves by the step and stays inside the printable area', () => {
    expect(moveBox(box, 0.5, -0.5, AREA)).toEqual({ x: 10.5, y: 4.5, width: 20, height: 8 });
    expect(moveBox(box, -50, 0, AREA).x).toBe(0);
    expect(moveBox(box, 50, 50, AREA)).toEqual({ x: 38.9, y: 14.9, width: 20, height: 8 });
  });

  it('resizes from the right and bottom, never below 1 mm nor past the area', () => {
    expect(resizeBox(box, 5, 5, AREA)).toEqual({ x: 10, y: 5, width: 25, height: 13 });
    expect(resizeBox(box, -40, -40, AREA)).toEqual({ x: 10, y: 5, width: 1, height: 1 });
    expect(resizeBox(box, 100, 100, AREA)).toEqual({ x: 10, y: 5, width: 48.9, height: 17.9 });
  });

  it('arrows move 0.5 mm, 5 mm with Shift, and resize with Alt', () => {
    expect(keyAction('ArrowRight', false, false)).toEqual({ kind: 'move', dx: 0.5, dy: 0 });
    expect(keyAction('ArrowUp', true, false)).toEqual({ kind: 'move', dx: 0, dy: -5 });
    expect(keyAction('ArrowDown', false, true)).toEqual({ kind: 'resize', dx: 0, dy: 0.5 });
    expect(keyAction('a', false, false)).toBeNull();
  });
});

describe('snapping', () => {
  it('puts an edge near the printable area edge on it', () => {
    const { box, guides } = snapMove({ x: 0.7, y: 3, width: 10, height: 5 }, AREA, []);
    expect(box.x).toBe(0);
    expect(guides).toContainEqual({ axis: 'x', at: 0 });
  });

  it('centres a box whose centre comes near the area centre', () => {
    const { box, guides } = snapMove({ x: 19.8, y: 9, width: 20, height: 5 }, AREA, []);
    // Centred to 0.1 mm: the area's centre is 29.45 mm, the box's 29.5 mm.
    expect(box.x).toBe(19.5);
    expect(guides.find((g) => g.axis === 'x')?.at).toBe(29.5);
  });

  it('lines an edge up with another element, and leaves a box far from every guide alone', () => {
    const other = { x: 30, y: 2, width: 10, height: 4 };
    // The moved box's left edge 0.6 mm right of the other's left edge: snapped onto it.
    expect(snapMove({ x: 30.6, y: 12, width: 6, height: 3 }, AREA, [other]).box.x).toBe(30);
    const free = { x: 5.3, y: 7.4, width: 3, height: 2.2 };
    expect(guidesFor(AREA, []).x).toEqual([0, 29.45, 58.9]);
    expect(snapMove(free, AREA, [], 0.5)).toEqual({ box: free, guides: [] });
  });

  it('snaps a resized right edge to the area edge', () => {
    const { box } = snapResize({ x: 40, y: 2, width: 18.3, height: 5 }, AREA, []);
    expect(box.width).toBe(18.9);
  });
});

describe('undo history', () => {
  it('undoes and redoes steps, and a new step drops what was undone', () => {
    const h = new History({ x: 0 });
    h.push({ x: 1 });
    h.push({ x: 2 });
    expect(h.undo()).toEqual({ x: 1 });
    expect(h.undo()).toEqual({ x: 0 });
    expect(h.canUndo).toBe(false);
    expect(h.undo()).toEqual({ x: 0 });
    expect(h.redo()).toEqual({ x: 1 });
    h.push({ x: 5 });
    expect(h.canRedo).toBe(false);
    expect(h.undo()).toEqual({ x: 1 });
  });

  it('merges a run of edits with the same key into one step, not across a pause', () => {
    const h = new History({ text: '' });
    h.push({ text: 'B' }, 'text', 1000);
    h.push({ text: 'Bi' }, 'text', 1200);
    h.push({ text: 'Bin' }, 'text', 1400);
    expect(h.undo()).toEqual({ text: '' });
    h.redo();
    h.push({ text: 'Bin 4' }, 'text', 5000);
    expect(h.undo()).toEqual({ text: 'Bin' });
  });

  it('ignores a step that changes nothing, and keeps snapshots apart from the caller', () => {
    const state = { list: [1] };
    const h = new History(state);
    state.list.push(2);
    expect(h.current).toEqual({ list: [1] });
    h.push({ list: [1] });
    expect(h.canUndo).toBe(false);
  });
});

describe('the design on the wire', () => {
  const design: ElementDesign = { stock: 'brother-ql-62x29', elements: [] };
  design.elements.push(newElement(design, 'text', AREA));
  design.elements.push(newElement(design, 'line', AREA));
  design.elements.push(newElement(design, 'text', AREA));

  it('names elements for people (the first text is the Title) and says moves in mm', () => {
    expect(design.elements.map((e) => e.name)).toEqual(['Title', 'Line', 'Text 2']);
    expect(movedWords({ ...design.elements[0]!, box: { x: 4, y: 2, width: 30, height: 8 } }, 'move')).toBe('Title moved to 4 mm, 2 mm');
  });

  it("sends each element with its type's members only, and reads them back with names", () => {
    const wire = toWire(design);
    expect(Object.keys(wire.elements[0]!).sort()).toEqual(['align', 'box', 'colour', 'lines', 'pt', 'rotation', 'text', 'type', 'weight']);
    expect(Object.keys(wire.elements[1]!).sort()).toEqual(['box', 'colour', 'thicknessMm', 'type']);
    expect(wire).not.toHaveProperty('logo');
    const back = fromWire(wire, { ...AREA, name: 'brother-ql-62x29' });
    expect(back.elements.map((e) => e.name)).toEqual(['Title', 'Line', 'Text 2']);
    expect(back.fromGrid).toBeUndefined();
    expect(toWire(back)).toEqual(wire);
  });

  it('opens a design in rows and columns as boxes where the grid puts them, and sends no cell back', () => {
    const grid = { rows: ['1fr', '1fr'], columns: ['20mm', '1fr'], columnGapMm: 1 };
    const wire = {
      stock: 'brother-ql-62x29',
      grid,
      elements: [
        { type: 'code', symbology: 'qr', cell: { row: 1, column: 1, rowSpan: 2 } },
        { type: 'text', text: '{name}', cell: { row: 1, column: 2 } },
        { type: 'text', text: '{path}', cell: { row: 2, column: 2 } },
      ],
    };
    const opened = fromWire(wire, { width: 58.9, height: 22.9, name: 'brother-ql-62x29' });
    expect(opened.fromGrid).toBe(true);
    expect(opened.elements.map((e) => e.box)).toEqual([
      { x: 0, y: 0, width: 20, height: 22.9 },
      { x: 21, y: 0, width: 37.9, height: 11.45 },
      { x: 21, y: 11.45, width: 37.9, height: 11.45 },
    ]);
    const back = toWire(opened);
    for (const e of back.elements) expect(e).not.toHaveProperty('cell');
    expect(back).not.toHaveProperty('grid');
  });

  it('reads an exported file, and says what is wrong with one that is not', () => {
    expect(parseImport(JSON.stringify(toWire(design))).elements).toHaveLength(3);
    expect(() => parseImport('{')).toThrow('it is not JSON.');
    expect(() => parseImport('{"elements":[]}')).toThrow('it names no stock.');
    expect(() => parseImport('{"stock":"brother-ql-62x29","lines":{}}')).toThrow('its lines are not a list.');
    // A file of a line design opens too: as elements (lines-to-elements.ts).
    const opened = fromWire(parseImport('{"stock":"brother-ql-62x29","lines":[{"field":"name"},{"field":"custom","text":"Bin {id}"}],"codes":["qr"],"codePosition":"left"}'), { ...AREA, name: 'brother-ql-62x29' });
    expect(opened.fromLines).toEqual({ notes: [] });
    expect(opened.elements.map((e) => [e.name, e.type, e.text ?? e.symbology, e.weight ?? null])).toEqual([['Title', 'text', '{name}', 'bold'], ['Text 2', 'text', 'Bin {id}', 'regular'], ['Code', 'code', 'qr', null]]);
    // The code a square on the left as tall as the label, the text beside it, the title's row twice the other's.
    const [title, second, code] = opened.elements.map((e) => e.box);
    expect(code).toEqual({ x: 0, y: 0, width: 22.9, height: 22.9 });
    expect(title!.x).toBeCloseTo(22.9 + 1.5, 5);
    expect(title!.height).toBeCloseTo(2 * second!.height, 1);
  });

  it('opens a line design on a small square label with a DataMatrix under the text, and says why', () => {
    const design = elementsFromLines({ stock: 'brother-ql-23x23', lines: [{ field: 'name' }], codes: ['qr'] }, { width: 17.1, height: 17.1, name: 'brother-ql-23x23' });
    expect(design.grid.columns).toEqual(['1fr']);
    expect(design.elements.find((e) => e.type === 'code')).toMatchObject({ symbology: 'datamatrix', cell: { row: 2, column: 1 } });
    expect(design.notes.join(' ')).toMatch(/^Its QR code is a DataMatrix here: this label leaves 13\.1 mm square/);
  });

  it("says a problem's place as the person knows it: the element's name, the image", () => {
    const names = ['Title', 'Code'];
    expect(problemInWords('/design/elements/1/box: the box (x 36.5) reaches outside the printable area', names)).toBe('Code: the box (x 36.5) reaches outside the printable area');
    expect(problemInWords('/elements/0: a text needs text', names)).toBe('Title: a text needs text');
    expect(problemInWords('/elements/7/cell: outside the grid', names)).toBe('Element 8: outside the grid');
    expect(problemInWords('/design/logo/image: not a PNG or an SVG', names)).toBe('The image: not a PNG or an SVG');
    expect(problemInWords('/grid/columns: the columns need 65 mm', names)).toBe('The columns need 65 mm');
    expect(problemInWords('Too many requests.', names)).toBe('Too many requests.');
  });

  it('says the scan check in words', () => {
    const clean = { damage: 'clean', decoded: true };
    expect(scanCheckWords({ passed: true, codes: [{ element: 3, symbology: 'qr', damages: [clean, { damage: 'blur 1.5', decoded: true }] }] }, [])).toBe('Scan check passed: its code read after each of 2 kinds of print damage.');
    expect(scanCheckWords({ passed: false, codes: [{ element: 1, symbology: 'qr', damages: [clean, { damage: 'downscale 0.5', decoded: false }] }] }, ['Title', 'Code'])).toMatch(/^Scan check failed: Code did not read after downscale 0\.5\./);
    expect(scanCheckWords(undefined, [])).toBe('The service did not check its codes for scanning.');
  });
});
