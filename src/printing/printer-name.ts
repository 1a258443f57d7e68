/** Printer names: what print jobs show instead of the device URI. Kept apart from the drivers, so config.ts loads none of them. */

/**
 * The name jobs show for a printer (PrintJob.printer) when PRINTER_NAME is not set:
 * never its address, which tells a print token where the print server is. A CUPS
 * queue's own name, else what kind of printer it is.
 */
export function printerName(uri: string): string {
  let u: URL;
  try {
    u = new URL(uri.trim());
  } catch {
    return 'printer';
  }
  switch (u.protocol) {
    case 'file:':
      return 'folder';
    case 'command:':
      return 'command';
    case 'socket:': {
      const lang = u.searchParams.get('lang');
      if (lang === 'brother-ql') return u.searchParams.get('model')?.match(/^[A-Za-z0-9-]{1,32}$/)?.[0] ?? 'Brother QL printer';
      return 'ZPL printer';
    }
    default: {
      // ipp://host/printers/<queue> (CUPS): the queue's name is what users call the printer.
      const queue = /^\/(?:printers|classes)\/([A-Za-z0-9._-]{1,64})\/?$/.exec(u.pathname)?.[1];
      return queue ?? 'IPP printer';
    }
  }
}

/** A stored job's printer as shown: jobs stored before printer names carry the device URI. */
export function shownPrinter(stored: string): string {
  return /^(?:file|ipps?|https?|socket|command):/i.test(stored) ? printerName(stored) : stored;
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
