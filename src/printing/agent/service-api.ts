/**
 * The agent's side of the agent operations (spec: the Agents tag), over fetch. Every call
 * is bounded in time. What fails is one of two kinds: the service could not be reached or
 * answered that it cannot now (network, 408, 429, 5xx: try again later), or it refused the
 * request (another 4xx: trying again the same way will not help). The token is sent in
 * the Authorization header only and is never part of an error or a log line.
 */
import type { components } from '../../../generated/openapi.js';
import type { PrinterStatus } from '../status/types.js';

export type AgentPrinter = components['schemas']['AgentPrinter'];
export type AgentJob = components['schemas']['AgentJob'];
export type AgentOutcome = components['schemas']['AgentOutcome'];

/** The service could not be reached, or answered that it cannot serve now: try again later. */
export class ServiceUnavailableError extends Error {}

/** The service refused the request (a 4xx other than 408 and 429): repeating it will not help. */
export class ServiceRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface AgentApi {
  /** The printers bound to this agent, with their device URIs. */
  printers(): Promise<AgentPrinter[]>;
  /** The next due job of `printers` (waiting up to waitSeconds), or undefined. */
  claim(printers: readonly string[], waitSeconds: number, leaseSeconds: number): Promise<AgentJob | undefined>;
  /** Records an outcome: 'accepted' (also for the same report again), or 'lease-lost' (409: the job has passed on). */
  report(jobId: string, outcome: AgentOutcome): Promise<'accepted' | 'lease-lost'>;
  reportStatus(printer: string, status: PrinterStatus): Promise<void>;
}

export interface AgentApiOptions {
  /** The service's base URL, e.g. https://labels.example.com */
  service: string;
  agent: string;
  token: string;
  /** Upper bound of one call (a claim's long poll adds its wait). */
  timeoutMs?: number;
}

export function agentApi({ service, agent, token, timeoutMs = 15_000 }: AgentApiOptions): AgentApi {
  const base = `${service.replace(/\/+$/, '')}/v1/labelmaker/agents/${encodeURIComponent(agent)}`;

  async function call(method: string, path: string, body: unknown, limitMs = timeoutMs): Promise<{ status: number; json?: unknown }> {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json, application/problem+json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(limitMs),
      });
    } catch (err) {
      const why = (err as Error).name === 'TimeoutError' ? `no answer within ${limitMs} ms` : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
      throw new ServiceUnavailableError(`${method} ${path}: the service cannot be reached (${why})`);
    }
    const text = await res.text().catch(() => '');
    const json = text ? safeJson(text) : undefined;
    if (res.status === 408 || res.status === 429 || res.status >= 500) {
      throw new ServiceUnavailableError(`${method} ${path}: the service answered ${res.status}${detailOf(json)}`);
    }
    if (res.status >= 400 && res.status !== 409) throw new ServiceRefusedError(res.status, `${method} ${path}: the service refused (${res.status})${detailOf(json)}`);
    return { status: res.status, json };
  }

  return {
    async printers() {
      return ((await call('GET', '/printers', undefined)).json as components['schemas']['AgentPrinterList']).printers;
    },
    async claim(printers, waitSeconds, leaseSeconds) {
      const { status, json } = await call('POST', '/claims', { printers: [...printers], waitSeconds, leaseSeconds }, timeoutMs + waitSeconds * 1000);
      return status === 200 ? (json as AgentJob) : undefined;
    },
    async report(jobId, outcome) {
      const { status } = await call('POST', `/jobs/${encodeURIComponent(jobId)}/outcome`, outcome);
      return status === 409 ? 'lease-lost' : 'accepted';
    },
    async reportStatus(printer, status) {
      await call('PUT', `/printers/${encodeURIComponent(printer)}/status`, status);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function detailOf(json: unknown): string {
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  return typeof detail === 'string' ? `: ${detail.slice(0, 300)}` : '';
}
