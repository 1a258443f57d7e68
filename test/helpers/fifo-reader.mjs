// A printer on a character device, as the kernel's usblp presents one: the other end of
// a FIFO. Each job is what arrives between the writer's open and its close; it goes to
// stdout as one line of base64. `stall`: open the FIFO and never read (a printer that
// takes nothing), so a writer fills the pipe and waits.
import { createReadStream, openSync } from 'node:fs';

const [path, mode = 'read'] = process.argv.slice(2);
if (mode === 'stall') {
  openSync(path, 'r'); // blocks until a writer opens, then holds the pipe unread
  setInterval(() => {}, 1 << 30);
} else {
  for (;;) {
    const chunks = [];
    for await (const chunk of createReadStream(path)) chunks.push(chunk);
    const job = Buffer.concat(chunks);
    if (job.length > 0) process.stdout.write(`${job.toString('base64')}\n`);
  }
}
