import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../../src/db/data-dir-lock.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const writeLock = (dir: string, pid: number) => fs.writeFileSync(path.join(dir, 'pgdata.lock'), JSON.stringify({ pid }));

describe('the embedded data directory lock', () => {
  it('refuses a second holder in this process until the first releases it, then leaves no file', () => {
    const dir = tempDir();
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    release();
    expect(fs.existsSync(path.join(dir, 'pgdata.lock'))).toBe(false);
    lockDataDir(dir)();
  });

  it('refuses while the process named in the lock lives, naming it', () => {
    const dir = tempDir();
    writeLock(dir, process.ppid);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another process \\(pid ${process.ppid}\\)`));
  });

  it('takes over a lock left by a process that is gone, or one naming this process that it does not hold (pid 1 after a container restart)', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    for (const pid of [dead, process.pid]) {
      const dir = tempDir();
      writeLock(dir, pid);
      const release = lockDataDir(dir);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'pgdata.lock'), 'utf8')).pid).toBe(process.pid);
      release();
    }
  });
});
