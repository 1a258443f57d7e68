/**
 * Printer names: what print jobs show instead of the device URI (each scheme's name
 * is in the scheme table, schemes.ts). Kept apart from the drivers, so config.ts
 * loads none of them.
 */
import { printerName, STORED_URI } from './schemes.js';

export { printerName };

/** A stored job's printer as shown: jobs stored before printer names carry the device URI. */
export function shownPrinter(stored: string): string {
  return STORED_URI.test(stored) ? printerName(stored) : stored;
}

/**
 * A driver's error as a job shows it: the printer by its name, with no device URI,
 * address or file path (drivers name their target, Node's socket errors the address
 * they tried, file errors the path). The log keeps the whole message for operators.
 */
export function shownError(message: string, target: string, name: string): string {
  return message
    .split(target)
    .join(name)
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'",)]+/gi, '<address>')
    .replace(/\[[0-9a-f:.]+\](?::\d+)?/gi, '<address>')
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, '<address>')
    .replace(/\b(?:[a-z0-9-]+\.)*[a-z0-9-]+:\d{2,5}\b/gi, '<address>')
    .replace(/'\/[^']*'/g, "'<path>'");
}
