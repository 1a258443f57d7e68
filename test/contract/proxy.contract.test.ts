/**
 * The shared contract suite through `prism proxy --errors` in front of the real
 * server: Prism validates every status, header and problem body against the spec
 * and turns a violation into a 500 with an sl-violations header. PNG bodies are
 * not compared here (Prism corrupts binary bodies): server.contract.test.ts does.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { startProxy } from '../../scripts/mock.js';
import type { TestServer } from '../helpers/server.js';
import { contractSuite } from './suite.js';
import { PROXY_UNTRIGGERABLE, serverTarget, startContractServer } from './targets.js';
import { PROXY_CORRUPTS_BODY } from './integration-targets.js';

let srv: TestServer;
let proxy: { url: string; close(): Promise<void> };
beforeAll(async () => {
  srv = await startContractServer();
  proxy = await startProxy(srv.url);
});
afterAll(async () => {
  await proxy?.close();
  await srv?.stop();
});

contractSuite(
  'contract: real server behind prism proxy --errors',
  () => ({
    ...serverTarget(srv, proxy.url),
    pngBodies: false,
    check: (res) => expect(res.headers.get('sl-violations')).toBeNull(),
  }),
  (op, status) => !PROXY_UNTRIGGERABLE.has(status) && !PROXY_CORRUPTS_BODY.has(`${op} ${status}`),
);
