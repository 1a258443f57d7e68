/**
 * The SQLite writer's worker thread (see sqlite-writer.ts): opens its own connection
 * to the database and runs the store's writes in batches, off the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WriteQueue, WriteSession, reviveBuffers, serializeError, type FromWriter, type ToWriter, type WriterConfig } from './sqlite-writer.js';

const port = parentPort!;
const send = (m: FromWriter) => port.postMessage(m);

let session: WriteSession | undefined;
try {
  session = WriteSession.open(workerData as WriterConfig, (event) => send({ event }));
  send({ ready: true });
} catch (err) {
  send({ failed: serializeError(err) });
}

const queue = session && new WriteQueue(session);
port.on('message', (m: ToWriter) => {
  if ('close' in m) {
    void (queue?.idle() ?? Promise.resolve()).then(() => {
      session?.close();
      port.close();
    });
    return;
  }
  if (!queue) {
    send({ id: m.id, ok: false, error: { name: 'Error', message: 'the database writer could not open the database', code: 'SQLITE_CANTOPEN' } });
    return;
  }
  void queue.submit({ ...m.call, args: reviveBuffers(m.call.args) }).then((outcome) => {
    try {
      send(outcome.ok ? { id: m.id, ok: true, value: outcome.value } : { id: m.id, ok: false, error: serializeError(outcome.error) });
    } catch (err) {
      // A value that cannot be cloned is a bug of ours: report it, don't hang the caller.
      send({ id: m.id, ok: false, error: serializeError(err) });
    }
  });
});
