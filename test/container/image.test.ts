/**
 * The container image, from the user's side: builds the Containerfile with podman (the
 * base `debian:bookworm-slim` made locally by scripts/container-base where no registry is
 * reachable), runs it as its users would (a named volume, the port on loopback, the demo),
 * and checks through it: a label PNG that scans, a print into the folder printer in the
 * volume, a token made with the CLI inside the container, a clean SIGTERM stop, and a new
 * container on the same volume with the data intact. Prints the build time and image size.
 * Fails (never skips) where podman is missing: scripts/setup --test installs it.
 *
 * LABELMAKER_IMAGE_ARCH=arm64 runs the same checks on the image for that architecture,
 * built and run under emulation (qemu-user-static and binfmt-support; docs/containers.md):
 * not in npm test, as the emulated build takes most of an hour.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${root}ci/containers.conf` };
const run = `lm-ci-${process.pid}`;
const image = `localhost/labelmaker:${run}`;
const volume = `${run}-data`;
const CA = '/etc/ssl/certs/ca-certificates.crt';
/** The architecture under test: this machine's unless LABELMAKER_IMAGE_ARCH names another (emulated: everything is slower). */
const arch = process.env.LABELMAKER_IMAGE_ARCH;
const platform = arch ? ['--platform', `linux/${arch}`] : [];
const slow = arch ? 10 : 1;

function podman(args: string[], opts: { timeoutMs?: number; allowFail?: boolean } = {}): string {
  const r = spawnSync('podman', args, { cwd: root, env, encoding: 'utf8', timeout: opts.timeoutMs ?? 60_000 * slow, maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`podman ${args[0]}: ${r.error.message} (scripts/setup --test installs podman)`);
  if (r.status !== 0 && !opts.allowFail) throw new Error(`podman ${args.join(' ')} exited ${r.status}:\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startContainer(name: string): Promise<string> {
  podman(['run', '-d', ...platform, '--name', name, '-p', '127.0.0.1::8080', '-v', `${volume}:/data`, '-e', 'DEMO=true', image]);
  for (let i = 0; i < 300 * slow; i++) {
    // No systemd here, so no health timer runs: ask the image's HEALTHCHECK directly.
    if (spawnSync('podman', ['healthcheck', 'run', name], { env, stdio: 'ignore' }).status === 0) break;
    if (podman(['inspect', name, '--format', '{{.State.Running}}']).trim() !== 'true') {
      throw new Error(`the container stopped:\n${podman(['logs', name], { allowFail: true })}`);
    }
    await sleep(200);
  }
  expect(podman(['healthcheck', 'run', name], { allowFail: true }), podman(['logs', name], { allowFail: true })).toMatch(/^(healthy)?\s*$/);
  return `http://${podman(['port', name, '8080']).trim().split('\n')[0]}`;
}

let base = '';
let token = '';

beforeAll(async () => {
  let t = Date.now();
  execFileSync(`${root}scripts/container-base`, arch ? [arch] : [], { cwd: root, env, stdio: 'inherit', timeout: 300_000 * slow });
  console.log(`container: base image ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  const secret = existsSync(CA) ? ['--secret', `id=ca,src=${CA}`] : [];
  podman(['build', '--pull=never', ...platform, '--format', 'docker', ...secret, '-t', image, '.'], { timeoutMs: 420_000 * slow });
  const [size, built] = podman(['image', 'inspect', image, '--format', '{{.Size}} {{.Architecture}}']).trim().split(' ');
  console.log(`container: ${built} image built in ${((Date.now() - t) / 1000).toFixed(1)} s; size ${(Number(size) / 1e6).toFixed(0)} MB`);
  if (arch) expect(built).toBe(arch);
  podman(['volume', 'create', volume]);
  base = await startContainer(`${run}-a`);
}, 480_000 * slow);

afterAll(() => {
  for (const c of [`${run}-a`, `${run}-b`]) podman(['rm', '-f', '-v', c], { allowFail: true });
  podman(['volume', 'rm', '-f', volume], { allowFail: true });
  podman(['rmi', '-f', image], { allowFail: true });
});

describe('the container image', () => {
  it('runs as a non-root user, with its data in the /data volume', () => {
    expect(podman(['exec', `${run}-a`, 'id', '-u']).trim()).not.toBe('0');
    expect(podman(['exec', `${run}-a`, 'ls', '/data'])).toContain('labelmaker.db');
  });

  it('makes a token with the CLI inside the container, and serves a label that scans', async () => {
    const out = podman(['exec', `${run}-a`, 'labelmaker', 'tokens', 'create', '--name', 'ci', '--scopes', 'labels:read,labels:print']);
    token = /\b(lm_\S+)/.exec(out)?.[1] ?? '';
    expect(token, out).not.toBe('');
    const res = await fetch(`${base}/v1/labelmaker/assets/000-001`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(readPngHeader(png).width).toBeGreaterThan(100);
    const codes = await decodeBarcodes(png);
    expect(codes.map((c) => c.text).join(' ')).toMatch(/000-001|000001/);
    const unauth = await fetch(`${base}/v1/labelmaker/assets/000-001`);
    expect(unauth.status).toBe(401);
  });

  it('prints into the demo folder printer in the volume (not under the read-only /app)', async () => {
    const res = await fetch(`${base}/v1/labelmaker/assets/000-001?print=true`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    let files = '';
    for (let i = 0; i < 100 && !files.includes('.png'); i++) {
      await sleep(100);
      files = podman(['exec', `${run}-a`, 'ls', '/data/printed-labels'], { allowFail: true });
    }
    expect(files).toMatch(/\.png/);
  });

  it('stops cleanly on SIGTERM, and a new container on the same volume keeps the data', async () => {
    const t = Date.now();
    podman(['stop', '-t', String(20 * slow), `${run}-a`]);
    expect(podman(['inspect', `${run}-a`, '--format', '{{.State.ExitCode}}']).trim()).toBe('0');
    expect(Date.now() - t).toBeLessThan(15_000 * slow);
    podman(['rm', `${run}-a`]);
    const again = await startContainer(`${run}-b`);
    const res = await fetch(`${again}/v1/labelmaker/assets/000-001`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(podman(['exec', `${run}-b`, 'ls', '/data/printed-labels'])).toMatch(/\.png/);
  });
});
