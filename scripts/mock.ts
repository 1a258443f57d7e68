/**
 * `npm run mock`: Stoplight Prism serving spec/openapi.yaml, behind a small front
 * that turns Prism's base64 PNG examples into real PNG bytes (Prism never sends
 * binary bodies; see ../shared/notes/toolchain.md). Everything else (status,
 * headers, problem+json bodies, Prefer: code=/example=) passes through unchanged.
 *
 *   npm run mock                 # listens on MOCK_PORT (default 4010)
 *   npm run mock -- --errors     # Prism answers 500 when an example violates its schema
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PRISM = `${ROOT}node_modules/.bin/prism`;

export interface RunningMock {
  url: string;
  prismUrl: string;
  close(): Promise<void>;
}

export interface MockOptions {
  port?: number;
  host?: string;
  /** Prism's --errors: invalid examples/responses become 500s instead of warnings. */
  errors?: boolean;
  spec?: string;
}

export async function startMock({ port = 0, host = '127.0.0.1', errors = false, spec = SPEC }: MockOptions = {}): Promise<RunningMock> {
  const { prism, prismUrl } = await startPrism(['mock', ...(errors ? ['--errors'] : []), spec]);
  const front = createServer((req, res) => {
    const upstream = request(
      `${prismUrl}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(prismUrl).host } },
      async (up) => {
        const body = await readAll(up);
        const headers = { ...up.headers };
        const type = String(headers['content-type'] ?? '');
        let out = body;
        if (/^image\//i.test(type) && /^[A-Za-z0-9+/=\s]+$/.test(body.toString('latin1'))) {
          out = Buffer.from(body.toString('latin1'), 'base64');
        }
        headers['content-length'] = String(out.length);
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(out);
      },
    );
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: '/problems/mock-unavailable', title: 'Mock unavailable', status: 502, detail: err.message }));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, () => resolve());
  });
  const addr = front.address() as AddressInfo;
  return {
    url: `http://${host}:${addr.port}`,
    prismUrl,
    close: () => closeAll(front, prism),
  };
}

const SPEC = `${ROOT}spec/openapi.yaml`;

/**
 * `prism proxy --errors` in front of a real server: it validates status codes,
 * headers and problem bodies against the spec (a violation becomes a 500 with an
 * sl-violations header). It corrupts binary bodies, so PNGs are checked elsewhere.
 */
export async function startProxy(upstream: string, spec = SPEC): Promise<{ url: string; close(): Promise<void> }> {
  const { prism, prismUrl } = await startPrism(['proxy', '--errors', spec, upstream]);
  return { url: prismUrl, close: () => stopProcess(prism) };
}

async function startPrism(args: string[]): Promise<{ prism: ChildProcess; prismUrl: string }> {
  const prism = spawn(PRISM, [args[0]!, '-h', '127.0.0.1', '-p', '0', ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return { prism, prismUrl: await prismListening(prism) };
  } catch (err) {
    prism.kill('SIGKILL');
    throw err;
  }
}

function prismListening(prism: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 30 s:\n${log}`)), 30_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(log);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    prism.stdout?.on('data', onData);
    prism.stderr?.on('data', onData);
    prism.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${log}`));
    });
  });
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

async function closeAll(front: Server, prism: ChildProcess): Promise<void> {
  front.closeAllConnections();
  await new Promise<void>((resolve) => front.close(() => resolve()));
  await stopProcess(prism);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = Number(process.env.MOCK_PORT ?? 4010);
  const mock = await startMock({ port, host: process.env.MOCK_HOST ?? '127.0.0.1', errors: process.argv.includes('--errors') });
  console.log(`Labelmaker mock (Prism) listening on ${mock.url}`);
  console.log(`Try: curl -H 'Authorization: Bearer any' -o label.png ${mock.url}/v1/labelmaker/assets/000-001`);
  console.log(`     curl -H 'Authorization: Bearer any' -H 'Accept: image/png, application/problem+json' -H 'Prefer: code=404' ${mock.url}/v1/labelmaker/assets/000-001`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
