/**
 * How the server produces each documented answer of the agent operations (spec tag Agents):
 * real conditions. Each call that needs printers or jobs gets an agent of its own (its
 * printer bound to it, its token named as it), so calls never meet.
 */
import { randomUUID } from 'node:crypto';
import { createToken } from '../../src/commands.js';
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const AGENT_OPS = new Set(['listAgentPrinters', 'claimAgentJob', 'reportAgentJob', 'reportAgentPrinterStatus']);

const AGENTS = '/v1/labelmaker/agents';
const STATUS = { state: 'ready', reasons: [], message: 'Ready.', media: null, checkedAt: new Date().toISOString() };

interface Agent {
  name: string;
  token: string;
  printer: string;
}

/** A new agent with a folder printer bound to it (nothing is contacted: the service never delivers to it). */
async function newAgent(srv: TestServer, withPrinter = true): Promise<Agent> {
  const name = `agent-${randomUUID().slice(0, 8)}`;
  const token = (await createToken(srv.store, name, ['printers:agent'])).token;
  const printer = `${name}-p`;
  if (withPrinter) {
    const res = await fetch(`${srv.url}/v1/labelmaker/printers/${printer}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Agent printer', deviceUri: 'file:///tmp/lm-contract-agent', agent: name }),
    });
    if (res.status !== 201) throw new Error(`could not create ${printer}: ${res.status} ${await res.text()}`);
  }
  return { name, token, printer };
}

/** An agent with a job claimed: the job's id and the claim's lease. */
async function claimed(srv: TestServer): Promise<Agent & { job: string; lease: string }> {
  const agent = await newAgent(srv);
  const printed = await fetch(`${srv.url}/v1/labelmaker/assets/000-042?print=true&printer=${agent.printer}`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
  if (printed.status !== 200) throw new Error(`could not print: ${printed.status}`);
  const res = await fetch(`${srv.url}${AGENTS}/${agent.name}/claims`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${agent.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ waitSeconds: 5 }),
  });
  if (res.status !== 200) throw new Error(`could not claim: ${res.status}`);
  const job = (await res.json()) as { id: string; lease: string };
  return { ...agent, job: job.id, lease: job.lease };
}

export async function agentCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const tooLarge = (path: string, method: string, token: string): Call => ({ path, method, token, rawBody: { type: 'application/json', data: JSON.stringify({ padding: 'x'.repeat(20 * 1024) }) } });
  const wrongType = (path: string, method: string, token: string): Call => ({ path, method, token, rawBody: { type: 'text/plain', data: '{}' } });
  if (operationId === 'listAgentPrinters') {
    const a = await newAgent(srv);
    const path = `${AGENTS}/${a.name}/printers`;
    switch (status) {
      case 200: return { path, token: a.token };
      case 400: return { path: `${AGENTS}/Bad_Name/printers`, token: a.token };
      case 401: return { path, token: null };
      case 403: return { path, token: srv.tokens.print }; // labels:print is not printers:agent
      case 406: return { path, token: a.token, headers: { Accept: 'image/png' } };
      default: return undefined;
    }
  }
  if (operationId === 'claimAgentJob') {
    if (status === 200) {
      const a = await newAgent(srv);
      const printed = await fetch(`${srv.url}/v1/labelmaker/assets/000-042?print=true&printer=${a.printer}`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } });
      if (printed.status !== 200) throw new Error(`could not print: ${printed.status}`);
      return { path: `${AGENTS}/${a.name}/claims`, method: 'POST', token: a.token, body: { waitSeconds: 5 } };
    }
    const a = await newAgent(srv, false);
    const path = `${AGENTS}/${a.name}/claims`;
    const claim = (extra: Partial<Call> = {}): Call => ({ path, method: 'POST', token: a.token, body: {}, ...extra });
    switch (status) {
      case 204: return claim();
      case 400: return claim({ body: { waitSeconds: 99 } });
      case 401: return claim({ token: null });
      case 403: return claim({ token: srv.tokens.admin }); // printers:admin is not printers:agent
      case 406: return claim({ headers: { Accept: 'image/png' } });
      case 413: return tooLarge(path, 'POST', a.token);
      case 415: return wrongType(path, 'POST', a.token);
      default: return undefined;
    }
  }
  if (operationId === 'reportAgentJob') {
    if (status === 200 || status === 409) {
      const c = await claimed(srv);
      // 409: a lease that is not the claim's (the job has passed on to it).
      return { path: `${AGENTS}/${c.name}/jobs/${c.job}/outcome`, method: 'POST', token: c.token, body: { lease: status === 200 ? c.lease : randomUUID(), outcome: 'printed' } };
    }
    const a = await newAgent(srv, false);
    const path = `${AGENTS}/${a.name}/jobs/${randomUUID()}/outcome`;
    const report = (extra: Partial<Call> = {}): Call => ({ path, method: 'POST', token: a.token, body: { lease: randomUUID(), outcome: 'printed' }, ...extra });
    switch (status) {
      case 400: return report({ body: { outcome: 'printed' } });
      case 401: return report({ token: null });
      case 403: return report({ token: srv.tokens.print });
      case 404: return report();
      case 406: return report({ headers: { Accept: 'image/png' } });
      case 413: return tooLarge(path, 'POST', a.token);
      case 415: return wrongType(path, 'POST', a.token);
      default: return undefined;
    }
  }
  const a = await newAgent(srv);
  const path = `${AGENTS}/${a.name}/printers/${a.printer}/status`;
  const put = (extra: Partial<Call> = {}): Call => ({ path, method: 'PUT', token: a.token, body: STATUS, ...extra });
  switch (status) {
    case 204: return put();
    case 400: return put({ body: { ...STATUS, state: 'sleepy' } });
    case 401: return put({ token: null });
    case 403: return put({ token: srv.tokens.admin });
    case 404: return put({ path: `${AGENTS}/${a.name}/printers/not-${a.printer}/status` });
    case 406: return put({ headers: { Accept: 'image/png' } });
    case 413: return tooLarge(path, 'PUT', a.token);
    case 415: return wrongType(path, 'PUT', a.token);
    default: return undefined;
  }
}
