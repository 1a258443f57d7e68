/**
 * The logo process (logo-process.ts starts it): draws one logo at a time for
 * the service and answers with its 1-bit picture or the reason it cannot be
 * one. It exits when the service goes away.
 */
import { drawLogo, LogoError } from './logo.js';
import type { LogoJob, LogoReply } from './logo-process.js';

const send = (reply: LogoReply) => process.send!(reply);

process.on('message', (job: LogoJob) => {
  drawLogo(Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength), job.heightDots, job.maxWidthDots).then(
    (bitmap) => send({ id: job.id, bitmap }),
    (err: unknown) => send({ id: job.id, error: err instanceof Error ? err.message : String(err), logoError: err instanceof LogoError }),
  );
});
// The service died or closed the channel: nothing is left to draw for.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
