// Test program for the command driver: records its argv and the {file} it got, then behaves as told.
import { readFileSync, writeFileSync } from 'node:fs';
const [out, mode, ...args] = process.argv.slice(2);
const file = args.find((a) => a.endsWith('.png'));
writeFileSync(out, JSON.stringify({ args, pid: process.pid, fileBytes: file ? readFileSync(file).toString('base64') : null }));
if (mode === 'fail') {
  process.stderr.write('x'.repeat(3000) + '\nlp: The printer or class does not exist.\n');
  process.exit(3);
}
if (mode === 'hang') setInterval(() => {}, 1000);
if (mode === 'stubborn') {
  process.on('SIGTERM', () => {}); // ignores SIGTERM: only SIGKILL stops it
  setInterval(() => {}, 1000);
}
