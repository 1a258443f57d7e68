/**
 * `labelmaker agent --service URL --name NAME [--token-file FILE]`: runs the agent until
 * SIGTERM or SIGINT. The token comes from LABELMAKER_AGENT_TOKEN or --token-file, never
 * from the command line (where `ps` and shell histories show it).
 */
import { readFileSync } from 'node:fs';
import { destination, pino } from 'pino';
import { PRINTER_NAME } from '../fleet.js';
import { printerDrivers } from '../printer-drivers.js';
import { startAgent } from './agent.js';
import { agentApi } from './service-api.js';

export class AgentUsageError extends Error {}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function intOption(args: string[], name: string, fallback: number, min: number, max: number): number {
  const raw = option(args, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new AgentUsageError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** Runs the agent; resolves with the exit code once it has stopped. */
export async function runAgentCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.includes('--token')) throw new AgentUsageError('the token is never given on the command line: set LABELMAKER_AGENT_TOKEN or use --token-file');
  const service = option(args, '--service');
  const name = option(args, '--name');
  if (!service || !/^https?:\/\/[^\s]+$/.test(service)) throw new AgentUsageError('agent needs --service, the service\'s URL (http:// or https://)');
  if (!name || !PRINTER_NAME.test(name)) throw new AgentUsageError('agent needs --name: lower-case letters, digits and -, at most 40 characters (the token\'s name)');
  const file = option(args, '--token-file');
  const token = (file ? readTokenFile(file) : env.LABELMAKER_AGENT_TOKEN)?.trim();
  if (!token) throw new AgentUsageError('agent needs its token: set LABELMAKER_AGENT_TOKEN or use --token-file');
  const timeoutMs = intOption(args, '--print-timeout-ms', 30_000, 1_000, 600_000);
  const statusIntervalS = intOption(args, '--status-interval-s', 30, 0, 3_600);

  const logger = pino({ level: env.LOG_LEVEL ?? 'info', base: { agent: name } }, destination({ dest: 1, sync: false }));
  const agent = startAgent({
    api: agentApi({ service, agent: name, token }),
    drivers: printerDrivers(),
    logger,
    timeoutMs,
    retryBaseMs: intOption(args, '--retry-base-ms', 2_000, 10, 600_000),
    retryMaxMs: intOption(args, '--retry-max-ms', 60_000, 10, 3_600_000),
    statusIntervalMs: statusIntervalS * 1000,
  });
  logger.info({ service }, 'labelmaker agent started');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'agent: stopping (deliveries under way finish first)');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await agent.stop();
  logger.flush();
  return 0;
}

function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new AgentUsageError(`cannot read the token file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
