/** The shared contract suite against the real server. */
import { afterAll, beforeAll } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { contractSuite } from './suite.js';
import { SERVER_UNTRIGGERABLE, serverTarget, startContractServer } from './targets.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startContractServer();
});
afterAll(async () => {
  await srv?.stop();
});

contractSuite('contract: real server', () => serverTarget(srv), (_op, status) => !SERVER_UNTRIGGERABLE.has(status));
