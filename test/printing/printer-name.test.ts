import { describe, expect, it } from 'vitest';
import { shownError } from '../../src/printing/printer-name.js';

describe('shownError: a driver error as a print token sees it', () => {
  it.each([
    ['IPP printer ipp://10.1.2.3:631/printers/ql: connect ECONNREFUSED 10.1.2.3:631', 'IPP printer ipp://10.1.2.3:631/printers/ql', 'ql', 'ql: connect ECONNREFUSED <address>'],
    ['ZPL printer at printer.lan:9100: connect ETIMEDOUT', 'ZPL printer at printer.lan:9100', 'shipping', 'shipping: connect ETIMEDOUT'],
    ["ENOENT: no such file or directory, open '/srv/spool/labels/x.png'", 'folder /srv/spool/labels', 'folder', "ENOENT: no such file or directory, open '<path>'"],
    ['connect ECONNREFUSED [::1]:9100', 'x', 'y', 'connect ECONNREFUSED <address>'],
    ['see http://cups.example:631/jobs/7 for details', 'x', 'y', 'see <address> for details'],
    ['timed out after 800 ms (after the label was sent: the printer may have printed it)', 'x', 'y', 'timed out after 800 ms (after the label was sent: the printer may have printed it)'],
  ])('%s', (message, target, name, shown) => {
    expect(shownError(message, target, name)).toBe(shown);
  });
});
