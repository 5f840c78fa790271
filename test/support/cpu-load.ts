/**
 * CPU load for tests of behaviour under load: busy Node processes, as many as asked. Each stops by
 * itself after `maxMs` or once this process is gone, so a killed run leaves none spinning.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const SPIN = `
const end = Date.now() + Number(process.argv[1]);
const owner = Number(process.argv[2]);
for (let i = 1; ; i++) {
  if (i % 1e6 === 0) {
    if (Date.now() > end) break;
    try { process.kill(owner, 0); } catch { break; }
  }
}`;

export interface CpuLoad {
  stop(): void;
}

export function startCpuLoad(processes: number, maxMs = 120_000): CpuLoad {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++) {
    const child = spawn(process.execPath, ['-e', SPIN, String(maxMs), String(process.pid)], { stdio: 'ignore' });
    child.on('error', () => undefined);
    children.push(child);
  }
  return {
    stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}
