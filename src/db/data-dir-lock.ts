import fs from 'node:fs';
import path from 'node:path';

/** Another live process holds the embedded database of this data directory. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

/** The lock of this process, by lock file path: a stale file naming our own pid (pid 1 in a container) is not a holder. */
const held = new Set<string>();

/** True while a process of this pid exists (ours or another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number(JSON.parse(fs.readFileSync(file, 'utf8')).pid);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A lock file without a pid yet may be one another process is writing this instant. */
function justWritten(file: string): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs < 5_000;
  } catch {
    return false;
  }
}

/**
 * PGlite is a single-process database and has no lock of its own: two processes writing one data
 * directory corrupt it. The first process writes `pgdata.lock` (its pid) beside the database; a
 * second one refuses while that pid lives. A lock left by a process that died is taken over.
 * Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'pgdata.lock');
  const content = JSON.stringify({ pid: process.pid, since: new Date().toISOString() });
  for (let attempt = 0; ; attempt += 1) {
    try {
      fs.writeFileSync(file, content, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = holderOf(file);
      const live = pid !== undefined ? held.has(file) || (pid !== process.pid && isAlive(pid)) : justWritten(file);
      if (live || attempt > 0) {
        throw new DataDirInUseError(
          `the embedded database in ${dataDir} is in use by another process${pid ? ` (pid ${pid})` : ''}; it serves one process at a time: ` +
            `stop that one, use another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server (if no such process runs, delete ${file})`,
        );
      }
      // Left by a process that is gone: take it over. A racing taker makes our next `wx` fail.
      fs.rmSync(file, { force: true });
    }
  }
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    if (holderOf(file) === process.pid) fs.rmSync(file, { force: true });
  };
  // A process that exits without closing the database (an error at start) leaves no lock behind.
  process.once('exit', release);
  return () => {
    process.off('exit', release);
    release();
  };
}
