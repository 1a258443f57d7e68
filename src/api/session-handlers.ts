/**
 * getSession: the calling token as the spec shows it (id, name, scopes, print quota; never
 * the secret), so a client can offer only what the token may do, in batches it may send.
 */
import type { components } from '../../generated/openapi.js';
import { API_SCOPES } from '../records/index.js';
import type { Handlers } from './operations.js';
import { sendJson } from './problems.js';
import { tokenOf } from './router.js';

export function sessionHandlers({ printQuotaPerMinute }: { printQuotaPerMinute: number }): Pick<Handlers, 'getSession'> {
  return {
    async getSession(_c, _req, res) {
      const token = tokenOf(res);
      // Only API tokens get here (the router refuses integration keys), so only API scopes are listed.
      type ApiScope = components['schemas']['Session']['scopes'][number];
      const scopes = token.scopes.filter((s): s is ApiScope => API_SCOPES.includes(s));
      const body: components['schemas']['Session'] = { tokenId: token.id, name: token.name.slice(0, 200), scopes, printQuotaPerMinute };
      sendJson(res, 200, body);
    },
  };
}
