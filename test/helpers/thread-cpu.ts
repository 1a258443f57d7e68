/**
 * CPU time of a process's main thread (Linux /proc), ms. The event loop cannot
 * stall longer than the CPU its thread spends (nothing here blocks in a system
 * call), and unlike /healthz latency this does not grow with the machine's other
 * load: hostile-request tests assert both.
 */
import { readFileSync } from 'node:fs';

/** utime + stime of thread `pid` of process `pid` (the main thread), ms. */
export function mainThreadCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}
