/**
 * The agent operations (issue 31): what a `labelmaker agent` beside printers the service
 * cannot reach does over the API. It lists its printers (with their device URIs), claims
 * their jobs under a lease, reports each delivery's outcome and its printers' status.
 * The queue's rules are the store's: a claim is the one the dispatchers make (the lease
 * owner names the agent and this claim), an outcome is recorded only under the lease that
 * took the job, so a late report can never overwrite a later claim's.
 *
 * A token with `printers:agent` acts for one agent only: the agent named as the token.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';
import type { PrinterStore, PrintJob, PrintJobStore, SavedPrinter } from '../records/index.js';
import { printJobBody } from './handlers.js';
import type { Handlers } from './operations.js';
import { HttpProblem, sendJson } from './problems.js';
import { tokenOf } from './router.js';

export interface AgentHandlerDeps {
  printers: Pick<PrinterStore, 'list' | 'get' | 'saveStatus'>;
  jobs: Pick<PrintJobStore, 'claim' | 'get' | 'markPrinted' | 'markRetry' | 'markFailed'>;
  /** Looks again at a printer's held jobs after its status changed. */
  reevaluateHolds(printerName: string): Promise<number>;
  /** The request time-out: a long poll ends well before it. */
  requestTimeoutMs: number;
  /** How often a long poll looks at the queue again. */
  pollMs?: number;
}

/** The lease owner an agent's claim is stored under: the agent's name and the claim's lease id. */
export const agentLeaseOwner = (agent: string, lease: string) => `agent:${agent}:${lease}`;

const JOB_FIELDS = ['kind', 'id', 'name', 'assetId', 'url'] as const;
type AgentJobBody = components['schemas']['AgentJob'];

export function agentHandlers({ printers, jobs, reevaluateHolds, requestTimeoutMs, pollMs = 250 }: AgentHandlerDeps): Pick<Handlers, 'listAgentPrinters' | 'claimAgentJob' | 'reportAgentJob' | 'reportAgentPrinterStatus'> {
  /** The agent's printers, after checking the token is the agent's. */
  const printersOf = async (res: Response, agent: string): Promise<SavedPrinter[]> => {
    const token = tokenOf(res);
    if (token.name !== agent) throw new HttpProblem('insufficient-scope', `This token is the agent ${token.name.slice(0, 60)}'s; it cannot act for the agent ${agent}.`);
    return (await printers.list()).filter((p) => p.agent === agent);
  };
  const longestWaitMs = Math.max(0, requestTimeoutMs - 5_000);

  return {
    async listAgentPrinters(c, _req, res) {
      const mine = await printersOf(res, c.request.params.agent);
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, {
        printers: mine.map((p) => ({ name: p.name, title: p.title, deviceUri: p.deviceUri, stocks: p.stocks, red: p.red })),
      } satisfies components['schemas']['AgentPrinterList']);
    },

    async claimAgentJob(c, _req, res) {
      const { agent } = c.request.params;
      const body = c.request.requestBody;
      const names = (await printersOf(res, agent)).map((p) => p.name).filter((n) => !body.printers || body.printers.includes(n));
      const leaseMs = (body.leaseSeconds ?? 60) * 1000;
      const deadline = Date.now() + Math.min((body.waitSeconds ?? 0) * 1000, longestWaitMs);
      let gone = false;
      const onClose = () => (gone = true);
      res.once('close', onClose);
      try {
        for (;;) {
          // A client that went away gets no claim: the job would wait out a lease nobody holds.
          if (gone) return;
          const lease = randomUUID();
          const job = names.length > 0 ? await jobs.claim(agentLeaseOwner(agent, lease), leaseMs, names) : undefined;
          if (job) {
            res.set('Cache-Control', 'no-store');
            sendJson(res, 200, {
              id: job.id,
              printer: job.printer,
              template: job.template,
              title: job.title,
              fields: Object.fromEntries(JOB_FIELDS.filter((f) => typeof job.fields[f] === 'string').map((f) => [f, job.fields[f]])),
              createdAt: job.createdAt,
              attempts: job.attempts,
              maxAttempts: job.maxAttempts,
              lastError: job.lastError,
              inDoubt: job.inDoubt,
              lease,
              leaseExpiresAt: new Date(Date.now() + leaseMs).toISOString(),
              png: job.png.toString('base64'),
            } satisfies AgentJobBody);
            return;
          }
          const left = deadline - Date.now();
          if (left <= 0) break;
          await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)));
        }
        res.status(204).end();
      } finally {
        res.off('close', onClose);
      }
    },

    async reportAgentJob(c, _req, res) {
      const { agent, jobId } = c.request.params;
      const mine = new Set((await printersOf(res, agent)).map((p) => p.name));
      const notFound = new HttpProblem('not-found', `No print job of the agent ${agent} has the id ${jobId}.`);
      const before = await jobs.get(jobId);
      if (!before || !mine.has(before.printer)) throw notFound;
      const { lease, outcome, error, nextAttemptAt, inDoubt, possibleDuplicate } = c.request.requestBody;
      const owner = agentLeaseOwner(agent, lease);
      const marks = { inDoubt, possibleDuplicate };
      const message = error ?? (outcome === 'retry' ? 'the agent will try again' : 'the agent could not print it');
      const recorded =
        outcome === 'printed'
          ? await jobs.markPrinted(jobId, owner, marks)
          : outcome === 'retry'
            ? await jobs.markRetry(jobId, owner, message, nextAttemptAt ?? new Date().toISOString(), marks)
            : await jobs.markFailed(jobId, owner, message, marks);
      const after = await jobs.get(jobId);
      if (!after) throw notFound;
      // The same report again (its answer was lost): the job already is what it says.
      if (!recorded && !showsOutcome(after, outcome)) {
        throw new HttpProblem('lease-lost', `The lease on print job ${jobId} has ended and the job has passed on; it is now ${after.state}.`);
      }
      res.set('Cache-Control', 'no-store');
      sendJson(res, 200, printJobBody(after));
    },

    async reportAgentPrinterStatus(c, _req, res) {
      const { agent, name } = c.request.params;
      if (!(await printersOf(res, agent)).some((p) => p.name === name)) throw new HttpProblem('not-found', `No printer named ${name} is bound to the agent ${agent}.`);
      const status = c.request.requestBody;
      // As the poller: an older reading than the stored one is not kept; a new one may release held jobs.
      if (await printers.saveStatus(name, status)) await reevaluateHolds(name);
      res.status(204).end();
    },
  };
}

function showsOutcome(job: PrintJob, outcome: 'printed' | 'retry' | 'failed'): boolean {
  return outcome === 'printed' ? job.state === 'printed' : outcome === 'failed' ? job.state === 'failed' : job.state === 'queued';
}
