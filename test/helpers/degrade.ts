/** The print-and-scan damages live with the save-time scan check (src/labels/degrade.ts). */
export * from '../../src/labels/degrade.js';
