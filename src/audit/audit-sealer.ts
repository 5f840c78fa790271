import type { Db } from '../db/database.js';
import type { Logger } from '../kernel/logger.js';
import { sealAllChains, type ChainCut } from './audit.repository.js';

export const SEAL_INTERVAL_MS = 250;

/**
 * Seals new audit records into their chains a moment after they commit. Any number of processes
 * may run one: the chain head's row lock makes them take turns. Returns a stop function.
 */
export function startAuditSealer(db: Db, log: Logger, intervalMs = SEAL_INTERVAL_MS): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  const tick = async () => {
    try {
      await sealAllChains(db, (cut) => logChainCut(log, cut));
      failing = false;
    } catch (err) {
      if (!failing) log.warn({ err: (err as Error).message }, 'audit sealer could not seal; will retry');
      failing = true;
    }
  };
  const loop = () => {
    if (stopped) return;
    running = tick().finally(() => {
      if (!stopped) setTimeout(loop, intervalMs).unref();
    });
  };
  loop();
  return async () => {
    stopped = true;
    await running;
    // Leave nothing unsealed that this process wrote.
    await tick();
  };
}

/** Said once per finding, at error level: someone who does not hold the audit key moved a chain's head back. */
export function logChainCut(log: Pick<Logger, 'error'>, cut: ChainCut): void {
  log.error(
    { account_id: cut.accountId, livemode: cut.livemode, head_sequence: cut.sequence, head_hash: cut.headHash, first_time: cut.firstTime },
    'audit chain head moved without the audit key (records past it removed?): chain marked tampered, verification reports it invalid; see docs/security.md',
  );
}
