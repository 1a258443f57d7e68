/**
 * A stand-in for a raw TCP (port 9100) printer: an in-process server on
 * 127.0.0.1 that records each connection's bytes. Modes:
 *   'accept'  reads until the client half-closes, then closes (like a printer);
 *   'hang'    accepts but never reads and never closes (a stuck printer);
 *   'take-and-hang'  reads the whole job (it counts as received, as a printer
 *             would print it) but never closes: a printer that prints, then hangs.
 * refusedPort() gives a port with nothing listening. A connection that sends nothing (a reach
 * probe) is neither a job nor counted, except in 'hang' mode, which reads nothing.
 * A `respond` factory makes it a printer that answers: each connection gets its own
 * responder, called with every chunk read, whose answer (if any) is written back at once
 * (a Zebra answering ~HS: zebra-peer.ts); `isJob` tells a print job from a connection
 * that only asked for status, which is then not recorded.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface TcpSink {
  host: string;
  port: number;
  /** Resolves with the bytes of the next completed connection (in order of completion). */
  nextJob(): Promise<Buffer>;
  /** Every completed connection's bytes so far, in order of completion (nextJob does not consume these). */
  received(): Buffer[];
  /** Number of connections accepted so far, less those that only asked for status (the status poller's ~HS~HQES). */
  readonly connections: number;
  /** How the printer treats connections from now on. */
  setMode(mode: SinkMode): void;
  /** Cuts every open connection (a hung printer power-cycled): the sender's write or wait fails. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** `port`: listen on this port (e.g. one from refusedPort(), to bring a "down" printer up); default any free port. */
export type SinkMode = 'accept' | 'hang' | 'take-and-hang';

/** Per connection: gets each chunk the client sends, returns the bytes to answer (or nothing). */
export type Responder = (chunk: Buffer) => Buffer | undefined;

export interface TcpSinkOptions {
  respond?: () => Responder;
  /** Whether a finished connection's bytes are a print job (default: all but a ZPL status query alone, as a Zebra takes it). */
  isJob?: (bytes: Buffer) => boolean;
}

/** A connection that only sent Zebra status queries (the status poller's): no label, nothing printed. */
const onlyStatusQuery = (bytes: Buffer): boolean => bytes.length > 0 && /^(?:~HS|~HQES|\s)+$/.test(bytes.toString('latin1'));

export async function startTcpSink(initialMode: SinkMode = 'accept', port = 0, opts: TcpSinkOptions = {}): Promise<TcpSink> {
  let mode = initialMode;
  const sockets = new Set<Socket>();
  const done: Buffer[] = [];
  const all: Buffer[] = [];
  const waiters: ((b: Buffer) => void)[] = [];
  let connections = 0;
  let statusQueries = 0;
  let empty = 0;
  /** Bytes so far of each open connection: one asking for status is not counted while it waits for its answer either. */
  const pending = new Map<Socket, Buffer[]>();
  const isJob = opts.isJob ?? ((bytes: Buffer) => !onlyStatusQuery(bytes));
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'hang') {
      socket.pause();
      return;
    }
    const chunks: Buffer[] = [];
    pending.set(socket, chunks);
    socket.on('close', () => {
      pending.delete(socket);
      // Connected and sent nothing (a reach probe, printing/reach.ts): no job, as on a real printer.
      if (chunks.length === 0) empty++;
    });
    const respond = opts.respond?.();
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const answer = respond?.(c);
      if (answer?.length && socket.writable) socket.write(answer);
    });
    const hangAfter = mode === 'take-and-hang';
    socket.on('end', () => {
      const job = Buffer.concat(chunks);
      pending.delete(socket);
      if (job.length === 0) {
        socket.end();
        return;
      }
      if (!isJob(job)) {
        if (onlyStatusQuery(job)) statusQueries++;
        socket.end();
        return;
      }
      all.push(job);
      const w = waiters.shift();
      if (w) w(job);
      else done.push(job);
      if (!hangAfter) socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('tcp sink has no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    get connections() {
      const asking = [...pending.values()].filter((c) => onlyStatusQuery(Buffer.concat(c))).length;
      return connections - statusQueries - asking - empty;
    },
    received: () => [...all],
    setMode: (m) => {
      mode = m;
    },
    dropConnections: () => {
      for (const s of sockets) s.destroy();
    },
    nextJob: () => {
      const job = done.shift();
      return job ? Promise.resolve(job) : new Promise<Buffer>((resolve) => waiters.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port that was free a moment ago and has nothing listening (connections are refused). */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}
