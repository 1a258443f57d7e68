/**
 * The compose files in docs/integrations/ (Homebox's and Grocy's images cannot be pulled
 * in CI, so they are checked as documents): Labelmaker beside the app on one private
 * network, Labelmaker not published, the app published on loopback only, and the URLs the
 * app is given are the ones its settings file documents (labelmaker:8080).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/docs.js';

interface Service { image?: string; ports?: string[]; networks?: string[]; environment?: Record<string, string>; volumes?: string[]; env_file?: string }
interface Compose { services: Record<string, Service>; networks: Record<string, unknown>; volumes: Record<string, unknown> }

const read = (name: string) => readFileSync(join(ROOT, 'docs/integrations', name), 'utf8');
const compose = (name: string) => parse(read(name)) as Compose;

describe.each([
  ['docker-compose.homebox.yml', 'homebox'],
  ['docker-compose.grocy.yml', 'grocy'],
])('%s', (file, app) => {
  const doc = compose(file);

  it('puts Labelmaker and the app on one private network, Labelmaker unpublished with its data in a volume', () => {
    const lm = doc.services.labelmaker!;
    expect(Object.keys(doc.services).sort()).toEqual([app, 'labelmaker'].sort());
    expect(lm.ports ?? []).toEqual([]);
    expect(lm.volumes).toContain('labelmaker-data:/data');
    expect(Object.keys(doc.volumes)).toContain('labelmaker-data');
    for (const s of Object.values(doc.services)) expect(s.networks).toEqual(Object.keys(doc.networks));
    for (const port of doc.services[app]!.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it("gives the app Labelmaker's address on that network (labelmaker:8080), as its settings file does", () => {
    const urls = Object.values(doc.services[app]!.environment ?? {}).join('\n');
    expect(urls).toContain('http://labelmaker:8080/v1/integrations/');
    expect(urls).not.toContain('host.docker.internal');
    const settings = app === 'homebox' ? read('homebox.env') : read('grocy-config.php');
    for (const url of urls.match(/http:\/\/labelmaker:8080\S+?(?=["\s]|$)/g) ?? []) expect(settings).toContain(url);
  });
});

it("Labelmaker's settings next to Homebox accept Homebox's container", () => {
  const env = read(compose('docker-compose.homebox.yml').services.labelmaker!.env_file!);
  expect(env).toMatch(/^HOST=0\.0\.0\.0$/m);
  expect(env).toMatch(/^PORT=8080$/m);
});
