/**
 * "An IPP printer that accepts, then hangs": a TCP proxy in front of a real
 * printer (ippeveprinter) that passes every request on, but for the first
 * `swallow` Print-Job requests keeps the printer's answer to itself and leaves
 * the client waiting. The printer has the job; the client cannot know it.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface LossyIppProxy {
  /** ipp://localhost:PORT/ipp/print through the proxy. */
  uri: string;
  /** Print-Job answers swallowed so far. */
  readonly swallowed: number;
  close(): Promise<void>;
}

const PRINT_JOB = 0x0002;

export async function startLossyIppProxy(printerUri: string, swallow: number): Promise<LossyIppProxy> {
  const upstream = new URL(printerUri);
  const sockets = new Set<Socket>();
  let swallowed = 0;
  const server = createServer((client) => {
    const printer = connect({ host: upstream.hostname, port: Number(upstream.port) });
    for (const s of [client, printer]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    let head = Buffer.alloc(0);
    let decided = false;
    let mute = false;
    client.on('data', (chunk: Buffer) => {
      if (!decided) {
        // The IPP operation id follows the HTTP headers (version: 2 bytes, operation: 2 bytes).
        head = Buffer.concat([head, chunk]);
        const body = head.indexOf('\r\n\r\n');
        if (body >= 0 && head.length >= body + 8) {
          decided = true;
          mute = head.readUInt16BE(body + 6) === PRINT_JOB && swallowed < swallow;
          if (mute) swallowed++;
        }
      }
      printer.write(chunk);
    });
    client.on('end', () => printer.end());
    printer.on('data', (chunk: Buffer) => {
      if (!mute) client.write(chunk);
    });
    printer.on('end', () => {
      if (!mute) client.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    uri: `ipp://127.0.0.1:${address.port}${upstream.pathname}`,
    get swallowed() {
      return swallowed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
