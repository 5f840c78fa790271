import type { Db, DbOrTrx } from '../db/database.js';
import { eventInsert, eventRecord } from '../events/events.repository.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import type { SigningKeys } from '../tokens/signing-keys.js';
import type { AuditCheckpointData } from './audit-events.js';
import { signCheckpoint } from './audit-checkpoint.js';
import { chainHead, sealAllChains, sealChain, type ChainCut } from './audit.repository.js';
import { chainsWithRecords, claimCheckpointDay, type ChainKey } from './audit-verify.repository.js';

export const CHECKPOINT_EVENT = 'audit.checkpoint';
/** Chains read per page. */
export const AUDIT_CHECKPOINT_PAGE = 100;

export type DailyCheckpointOutcome = 'sent' | 'already_sent' | 'no_endpoint';

export interface DailyCheckpointDeps {
  db: Db;
  keys: SigningKeys;
  /**
   * Whether the account and mode has an endpoint subscribed to `type`. The webhooks feature answers
   * it: it sits above this one (it writes audit records), so it is handed in.
   */
  hasSubscriber: (trx: DbOrTrx, chain: ChainKey, type: string) => Promise<boolean>;
  now?: () => Date;
  onCut?: (cut: ChainCut) => void;
}

/**
 * The day's checkpoint of one chain, as an `audit.checkpoint` event to the account's endpoints of
 * that mode subscribed to it (docs/api.md, "Audit log"). Sealed first, so the head is current and
 * its MAC checked (a head moved without the key is marked before it is signed). Once per chain and
 * day: a retried or repeated run sends nothing twice. Nothing is written for a chain whose account
 * has no endpoint to send it to.
 */
export async function sendDailyCheckpoint(deps: DailyCheckpointDeps, chain: ChainKey, day: string): Promise<DailyCheckpointOutcome> {
  await sealChain(deps.db, chain.accountId, chain.livemode, deps.onCut);
  return deps.db.transaction().execute(async (trx) => {
    if (!(await deps.hasSubscriber(trx, chain, CHECKPOINT_EVENT))) return 'no_endpoint';
    const head = (await chainHead(trx, chain.accountId, chain.livemode))!;
    const now = deps.now?.() ?? new Date();
    const place = { sequence: Number(head.sequence), head_hash: head.head_hash };
    const data: AuditCheckpointData = {
      checkpoint: await signCheckpoint(deps.keys, { aud: chain.accountId, livemode: chain.livemode, ...place }, now),
      ...place,
      day,
    };
    const event = eventRecord({ accountId: chain.accountId, livemode: chain.livemode, type: CHECKPOINT_EVENT, data, now });
    if (!(await claimCheckpointDay(trx, chain, day, place, event.id))) return 'already_sent';
    await trx.executeQuery(eventInsert(event));
    await enqueueOutbox(trx, 'event', event.id, chain.accountId, now);
    return 'sent';
  });
}

export interface DailyCheckpointsTally {
  /** Chains (account and mode) with records, looked at. */
  chains: number;
  sent: number;
  alreadySent: number;
  noEndpoint: number;
}

/**
 * The day's checkpoint of every chain with records, a page of chains at a time; `onPage` hears the
 * tally after each page (the activity heartbeats it). Safe to repeat.
 */
export async function sendDailyCheckpoints(deps: DailyCheckpointDeps, day: string, onPage?: (tally: DailyCheckpointsTally) => void): Promise<DailyCheckpointsTally> {
  const tally: DailyCheckpointsTally = { chains: 0, sent: 0, alreadySent: 0, noEndpoint: 0 };
  // A chain whose first records are not sealed yet has no head to list: seal what is committed first.
  await sealAllChains(deps.db, deps.onCut);
  let after: ChainKey | undefined;
  for (;;) {
    const page = await chainsWithRecords(deps.db, AUDIT_CHECKPOINT_PAGE, after);
    for (const chain of page) {
      tally.chains += 1;
      const outcome = await sendDailyCheckpoint(deps, chain, day);
      if (outcome === 'sent') tally.sent += 1;
      else if (outcome === 'already_sent') tally.alreadySent += 1;
      else tally.noEndpoint += 1;
    }
    onPage?.(tally);
    if (page.length < AUDIT_CHECKPOINT_PAGE) return tally;
    after = page.at(-1);
  }
}
