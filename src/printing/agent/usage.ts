/** `labelmaker agent`'s line of the CLI's usage (commands.ts): apart, so store commands load none of the agent. */
export const AGENT_USAGE = `  agent --service <url> --name <agent> [--token-file <file>] [--print-timeout-ms 30000] [--status-interval-s 30]
                                         run beside printers the service cannot reach: take their jobs
                                         and report their status (token: LABELMAKER_AGENT_TOKEN or
                                         --token-file; create it with tokens create --name <agent>
                                         --scopes printers:agent)`;
