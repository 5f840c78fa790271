/**
 * A child that dies with its owners. The Temporal CLI has no parent-death option, and a process
 * group of its own (so Ctrl-C reaches the service first, which drains the worker before it stops
 * the server) means nothing else stops it when the owner is killed with SIGKILL or a test run bails.
 * So a small POSIX shell loop, in a session of its own, watches the owners and the server: once an
 * owner is gone it stops the server's process group (SIGTERM, then SIGKILL after a grace period);
 * once the server is gone it exits.
 */
import { spawn } from 'node:child_process';

/** How long the watchdog waits after SIGTERM before it sends SIGKILL to the server's group. */
export const WATCHDOG_GRACE_SECONDS = 5;

// A zombie (exited, not yet reaped: an orphan under an init that never reaps) counts as gone.
const SCRIPT = `
srv=$1; shift
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  case "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)" in Z*|X*) return 1;; esac
  return 0
}
while alive "$srv"; do
  for owner in "$@"; do
    if ! alive "$owner"; then
      kill -s TERM -- "-$srv" 2>/dev/null
      i=0
      while alive "$srv" && [ "$i" -lt ${WATCHDOG_GRACE_SECONDS * 10} ]; do sleep 0.1; i=$((i + 1)); done
      kill -s KILL -- "-$srv" 2>/dev/null
      exit 0
    fi
  done
  sleep 1
done
`;

/**
 * Watches `owners`; when one of them dies, stops the process group led by `serverPid` (a child
 * spawned with `detached: true`). Returns the watchdog's pid. It needs nothing from this process
 * and keeps no handle open in it.
 */
export function watchOwners(serverPid: number, owners: readonly number[]): number | undefined {
  const watchdog = spawn('/bin/sh', ['-c', SCRIPT, 'spend-auth-watchdog', String(serverPid), ...owners.map(String)], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog.pid;
}
