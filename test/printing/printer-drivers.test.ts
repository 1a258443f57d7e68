import { describe, expect, it } from 'vitest';
import { printerDrivers } from '../../src/printing/printer-drivers.js';

describe('printerDrivers: one driver per printer while its URI stays', () => {
  it('keeps the driver for the same URI, makes a new one when the URI changes, forgets removed printers', () => {
    const drivers = printerDrivers();
    const a = drivers.driverFor({ name: 'bench', deviceUri: 'file:///tmp/labels-a' });
    expect(drivers.driverFor({ name: 'bench', deviceUri: 'file:///tmp/labels-a' })).toBe(a);
    const b = drivers.driverFor({ name: 'bench', deviceUri: 'socket://127.0.0.1:9100?lang=zpl' });
    expect(b).not.toBe(a);
    expect(b.kind).toBe('zpl');
    drivers.keepOnly(new Set());
    expect(drivers.driverFor({ name: 'bench', deviceUri: 'socket://127.0.0.1:9100?lang=zpl' })).not.toBe(b);
  });

  it('refuses a URI no driver takes', () => {
    expect(() => printerDrivers().driverFor({ name: 'x', deviceUri: 'gopher://printer' })).toThrow(/invalid printer URI/);
  });
});
