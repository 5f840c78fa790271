// CPU time of processes, from /proc (Linux): what a benchmark step cost, independent of how busy
// the rest of the machine was.
import fs from 'node:fs';

/** Length of one clock tick of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
export const TICK_MS = 10;

export interface Ticks {
  user: number;
  sys: number;
}

/** utime and stime of a process (all its threads), or undefined once it is gone. */
export function cpuTicks(pid: number): Ticks | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return statTicks(stat);
}

/** utime and stime from a `stat` line (of a process or a thread), and its name. */
function statTicks(stat: string): Ticks & { name: string } {
  // The command name (field 2) may hold spaces; fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), user: Number(fields[11]), sys: Number(fields[12]) };
}

/** Thread ids of `pid`; empty once it is gone. */
function tasksOf(pid: number): string[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** Child process ids of `pid` (one level). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const t of tasksOf(pid)) {
    try {
      out.push(...fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch {
      // thread gone
    }
  }
  return out;
}

/** `pid` and every process below it. */
export function descendants(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]!));
  return all;
}

/**
 * Follows a changing set of processes (pool connections come and go) and adds up the CPU each used
 * while followed: call `sample` often enough that a process is seen shortly before it exits.
 */
export class CpuMeter {
  private readonly first = new Map<number, Ticks>();
  private readonly last = new Map<number, Ticks>();

  constructor(private readonly pids: () => number[] | Promise<number[]>) {}

  async sample(): Promise<void> {
    for (const pid of await this.pids()) {
      const t = cpuTicks(pid);
      if (!t) continue;
      if (!this.first.has(pid)) this.first.set(pid, t);
      this.last.set(pid, t);
    }
  }

  /** CPU used by the followed processes between their first and last sample, in milliseconds. */
  total(): { user_ms: number; sys_ms: number; processes: number } {
    let user = 0;
    let sys = 0;
    for (const [pid, a] of this.first) {
      const b = this.last.get(pid)!;
      user += b.user - a.user;
      sys += b.sys - a.sys;
    }
    return { user_ms: user * TICK_MS, sys_ms: sys * TICK_MS, processes: this.first.size };
  }
}

/** Samples each meter every `intervalMs` while `work` runs, and once more at its end. */
export async function measure<T>(meters: Pick<CpuMeter, 'sample'>[], work: () => Promise<T>, intervalMs = 250): Promise<T> {
  await Promise.all(meters.map((m) => m.sample()));
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void Promise.all(meters.map((m) => m.sample())).finally(() => (busy = false));
  }, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await Promise.all(meters.map((m) => m.sample()));
  }
}

/** CPU ticks of each thread of `pid`, with the thread's name (comm), by thread id; empty once it is gone. */
export function threadTicks(pid: number): Map<number, Ticks & { name: string }> {
  const out = new Map<number, Ticks & { name: string }>();
  for (const t of tasksOf(pid)) {
    try {
      out.set(Number(t), statTicks(fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')));
    } catch {
      // thread gone
    }
  }
  return out;
}

/** The command line of a process ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}
