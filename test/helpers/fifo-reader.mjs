// A printer on a character device, as the kernel's usblp presents one: the other end of
// a FIFO, held open for reading and writing, so the device stays there between jobs and
// a writer's close is no end of anything (a printer tells jobs apart by their language).
// What arrives goes to stdout as lines of base64. `stall`: open it and never read (a
// printer that takes nothing), so a writer fills the pipe and waits.
import { createReadStream, openSync } from 'node:fs';

const [path, mode = 'read'] = process.argv.slice(2);
const fd = openSync(path, 'r+');
if (mode === 'stall') {
  setInterval(() => {}, 1 << 30);
} else {
  // Streamed, so stdout (a pipe to the test) is flushed between reads.
  createReadStream('', { fd }).on('data', (chunk) => process.stdout.write(`${chunk.toString('base64')}\n`));
}
