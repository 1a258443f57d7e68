/**
 * The SQLite writer's worker thread (see writer.ts): opens its own connection
 * to the database and runs the store's writes in batches, off the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WriteQueue, WriteSession, reviveBuffers, serializeError, type FromWriter, type Reply, type ToWriter, type WriterConfig } from './writer.js';

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

// The replies of one batch settle together; they go back as one message.
let outbox: Reply[] = [];
const reply = (r: Reply) => {
  if (outbox.push(r) > 1) return;
  queueMicrotask(() => {
    const replies = outbox;
    outbox = [];
    try {
      send({ replies });
    } catch (err) {
      // A value that cannot be cloned is a bug of ours: fail those calls, don't hang them.
      send({ replies: replies.map((x) => ({ id: x.id, ok: false as const, error: serializeError(err) })) });
    }
  });
};

port.on('message', (m: ToWriter) => {
  if ('close' in m) {
    void (queue?.idle() ?? Promise.resolve()).then(() => {
      session?.close();
      port.close();
    });
    return;
  }
  for (const { id, call } of m.calls) {
    if (!queue) {
      reply({ id, ok: false, error: { name: 'Error', message: 'the database writer could not open the database', code: 'SQLITE_CANTOPEN' } });
      continue;
    }
    void queue.submit({ ...call, args: reviveBuffers(call.args) }).then((outcome) =>
      reply(outcome.ok ? { id, ok: true, value: outcome.value } : { id, ok: false, error: serializeError(outcome.error) }),
    );
  }
});
