import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A throwaway PostgreSQL cluster of the test's own (initdb + pg_ctl from the installed server),
 * so a test can restart it without disturbing the server other test files share.
 * Undefined when no server binaries are installed.
 */
export function findPgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin/initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

export interface PgCluster {
  url: string;
  restart(): void;
  stop(): void;
}

export function startPgCluster(bin: string, port: number): PgCluster {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-pg-'));
  const data = path.join(dir, 'data');
  // The server refuses to run as root: run its tools as the postgres user when we are root.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args], { stdio: 'ignore' })
      : execFileSync(path.join(bin, tool), args, { stdio: 'ignore' });
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
