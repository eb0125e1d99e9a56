/**
 * CPU time of the processes a benchmark drives — the service and the storage engine — read
 * from /proc, so a measurement can say how many CPU milliseconds each side spent per request.
 * Linux only: elsewhere every reading is null and the tables say so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** User + system CPU milliseconds the process (all its threads) has used so far; null when it is gone or /proc is missing. */
export function processCpuMs(pid: number): number | null {
  return cpuMsOf(`/proc/${pid}/stat`);
}

function cpuMsOf(statFile: string): number | null {
  try {
    const stat = readFileSync(statFile, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const userTicks = Number(fields[11]);
    const systemTicks = Number(fields[12]);
    return ((userTicks + systemTicks) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** User + system CPU milliseconds of the process's first thread whose name starts with `prefix` (Linux names hold 15 characters); null if none. */
export function threadCpuMs(pid: number, prefix: string): number | null {
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      if (!readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').startsWith(prefix.slice(0, 15))) continue;
      return cpuMsOf(`/proc/${pid}/task/${task}/stat`);
    }
  } catch {
    // The process is gone, or there is no /proc.
  }
  return null;
}

/** The pid of the DynamoDB Local java process answering on `endpoint`'s port, if it runs on this machine. */
export function dynamoDbLocalPid(endpoint: string): number | null {
  if (!existsSync('/proc')) return null;
  const port = new URL(endpoint).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const portAt = args.indexOf('-port');
    if (
      args.some((arg) => arg.endsWith('DynamoDBLocal.jar')) &&
      portAt >= 0 &&
      args[portAt + 1] === port &&
      args[0]?.endsWith('java')
    )
      return Number(entry);
  }
  return null;
}

/** CPU milliseconds used by each named process (and by this one, as `client`) between `start()` and `stop()`. */
export class CpuMeter {
  private readonly pids: Map<string, number | null>;

  constructor(pids: Record<string, number | null | undefined>) {
    this.pids = new Map(Object.entries(pids).map(([name, pid]) => [name, pid ?? null]));
  }

  start(): () => Map<string, number | null> {
    const before = this.read();
    return () => {
      const after = this.read();
      return new Map(
        [...after].map(([name, ms]) => [name, ms === null || before.get(name) == null ? null : ms - before.get(name)!]),
      );
    };
  }

  private read(): Map<string, number | null> {
    const usage = process.cpuUsage();
    const readings = new Map<string, number | null>(
      [...this.pids].map(([name, pid]) => [name, pid === null ? null : processCpuMs(pid)]),
    );
    readings.set('client', (usage.user + usage.system) / 1000);
    return readings;
  }
}
