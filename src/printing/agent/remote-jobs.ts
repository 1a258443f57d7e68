/**
 * The print queue as the agent's deliverer (worker.ts) sees it: the three calls that record
 * an attempt's outcome, sent to the service (reportAgentJob) under the lease the claim
 * returned. A report is sent until the service takes it: a job printed while the service
 * was down is reported when it is back, never printed again because the answer was lost.
 * A lease that has passed on (409) is `false`, as the store's own calls answer for a lease
 * another worker took over; the job's next claim then asks the printer (in doubt).
 */
import type { Logger } from 'pino';
import type { AttemptMarks, PrintJobStore } from '../../records/types.js';
import { ServiceRefusedError, type AgentApi, type AgentOutcome } from './service-api.js';

export interface RemoteJobs extends Pick<PrintJobStore, 'markPrinted' | 'markRetry' | 'markFailed'> {
  /** The lease a claim returned for the job, to report under. */
  leased(jobId: string, lease: string): void;
}

export interface RemoteJobsOptions {
  api: Pick<AgentApi, 'report'>;
  logger: Logger;
  /** True once the agent is shutting down: a report still failing then is given up (the lease runs out; the job comes back in doubt). */
  stopped(): boolean;
  /** Longest pause between two tries of a report. */
  maxBackoffMs?: number;
}

export function remoteJobs({ api, logger, stopped, maxBackoffMs = 5_000 }: RemoteJobsOptions): RemoteJobs {
  const leases = new Map<string, string>();

  async function report(id: string, outcome: Omit<AgentOutcome, 'lease'>, marks: AttemptMarks | undefined): Promise<boolean> {
    const lease = leases.get(id);
    if (!lease) return false; // not claimed by this agent process: nothing to record under
    const body: AgentOutcome = {
      lease,
      ...outcome,
      ...(marks?.inDoubt === undefined ? {} : { inDoubt: marks.inDoubt }),
      ...(marks?.possibleDuplicate ? { possibleDuplicate: true } : {}),
    };
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await api.report(id, body)) === 'accepted';
        } catch (err) {
          if (err instanceof ServiceRefusedError || stopped()) throw err;
          if (attempt === 1 || attempt % 10 === 0) logger.warn({ job: id, attempt, error: (err as Error).message }, 'the outcome could not be reported yet; trying again');
          await new Promise((resolve) => setTimeout(resolve, Math.min(maxBackoffMs, 200 * 2 ** Math.min(attempt, 10))));
        }
      }
    } finally {
      leases.delete(id);
    }
  }

  return {
    leased: (jobId, lease) => void leases.set(jobId, lease),
    markPrinted: (id, _owner, marks) => report(id, { outcome: 'printed' }, marks),
    markRetry: (id, _owner, error, nextAttemptAt, marks) => report(id, { outcome: 'retry', error: error?.slice(0, 2000), nextAttemptAt }, marks),
    markFailed: (id, _owner, error, marks) => report(id, { outcome: 'failed', error: error.slice(0, 2000) }, marks),
  };
}
