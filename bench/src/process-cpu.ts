import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system, ms) used so far by each kind of process on the machine. */
export type CpuByProcess = Map<string, number>;

/** Clock ticks per second of /proc/<pid>/stat on Linux. */
const TICK_MS = 10;

/**
 * What every process on this machine has used so far, keyed by role: a Spindle service by its
 * `apps/<name>/dist`, nats-server, postgres, this bench, and the kernel's workers. Empty where
 * there is no /proc. Processes that end between two readings drop out of the difference.
 */
export function readCpuByProcess(): CpuByProcess {
  const used: CpuByProcess = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return used;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      const role = roleOf(Number(pid), name, readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      used.set(role, (used.get(role) ?? 0) + ms);
    } catch {
      // The process ended while being read.
    }
  }
  return used;
}

function roleOf(pid: number, name: string, cmdline: string): string {
  const service = /apps\/([a-z-]+)\/dist/.exec(cmdline);
  if (service) return service[1]!;
  if (pid === process.pid) return 'bench';
  if (name.startsWith('kworker') || name.startsWith('ksoftirq')) return 'kernel';
  if (name.startsWith('postgres')) return 'postgres';
  return name;
}

/** CPU ms each role used between two readings, largest first, leaving out roles under `minMs`. */
export function cpuBetween(before: CpuByProcess, after: CpuByProcess, minMs = 20): Array<[string, number]> {
  return [...after]
    .map(([role, ms]): [string, number] => [role, ms - (before.get(role) ?? 0)])
    .filter(([, ms]) => ms >= minMs)
    .sort((a, b) => b[1] - a[1]);
}
