/**
 * How the contract targets produce each documented answer of the print-rule operations:
 * real conditions on the server (each call on a rule of its own), the spec's example
 * request for 408 and 431 (targets.ts). Kept apart from targets.ts, which calls in here.
 */
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const PRINT_RULE_OPS = new Set(['listPrintRules', 'createPrintRule', 'getPrintRule', 'deletePrintRule']);

export const PRINT_RULES = '/v1/labelmaker/print-rules';
/** A rule the contract server takes: its location, template and printer (PRINTER_URI's `default`) exist. */
export const PRINT_RULE_BODY = { name: 'Contract rule', locationId: 'shelf-3', kinds: ['item'], triggers: ['created', 'moved'], template: 'brother-ql-62x29', printer: 'default' };
const UNKNOWN = `${PRINT_RULES}/00000000-0000-4000-8000-000000000000`;

/** A rule made through the API for one call: its path. */
async function newRule(srv: TestServer): Promise<string> {
  const res = await fetch(srv.url + PRINT_RULES, {
    method: 'POST',
    headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(PRINT_RULE_BODY),
  });
  if (res.status !== 201) throw new Error(`could not create a print rule: ${res.status} ${await res.text()}`);
  return res.headers.get('location')!;
}

export async function printRuleCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const admin = srv.tokens.admin;
  if (operationId === 'listPrintRules') {
    switch (status) {
      case 200: return { path: PRINT_RULES };
      case 400: return { path: `${PRINT_RULES}?x=%FF` };
      case 401: return { path: PRINT_RULES, token: null };
      case 403: return { path: PRINT_RULES, token: srv.tokens.printOnly };
      case 406: return { path: PRINT_RULES, headers: { Accept: 'image/png' } };
      default: return undefined;
    }
  }
  if (operationId === 'createPrintRule') {
    const create = (extra: Partial<Call> = {}): Call => ({ path: PRINT_RULES, method: 'POST', body: PRINT_RULE_BODY, token: admin, ...extra });
    switch (status) {
      case 201: return create();
      case 400: return create({ body: { ...PRINT_RULE_BODY, kinds: [] } });
      case 401: return create({ token: null });
      case 403: return create({ token: srv.tokens.print }); // printers:admin is needed
      case 406: return create({ headers: { Accept: 'image/png' } });
      case 413: return { path: PRINT_RULES, method: 'POST', token: admin, rawBody: { type: 'application/json', data: JSON.stringify({ ...PRINT_RULE_BODY, padding: 'x'.repeat(700 * 1024) }) } };
      case 415: return { path: PRINT_RULES, method: 'POST', token: admin, rawBody: { type: 'text/plain', data: JSON.stringify(PRINT_RULE_BODY) } };
      case 422: return create({ body: { ...PRINT_RULE_BODY, locationId: 'nowhere' } });
      default: return undefined;
    }
  }
  const method = operationId === 'getPrintRule' ? 'GET' : 'DELETE';
  const token = operationId === 'getPrintRule' ? undefined : admin;
  const on = (path: string, extra: Partial<Call> = {}): Call => ({ path, method, token, ...extra });
  switch (status) {
    case 200:
    case 204: return on(await newRule(srv));
    case 400: return on(`${PRINT_RULES}/not-a-uuid`);
    case 401: return on(UNKNOWN, { token: null });
    case 403: return on(UNKNOWN, { token: operationId === 'getPrintRule' ? srv.tokens.printOnly : srv.tokens.print });
    case 404: return on(UNKNOWN);
    case 406: return on(UNKNOWN, { headers: { Accept: 'image/png' } });
    default: return undefined;
  }
}
