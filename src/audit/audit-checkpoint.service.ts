import type { Db } from '../db/database.js';
import { eventInsert, eventRecord } from '../events/events.repository.js';
import type { AuditCheckpointData } from '../events/event.view.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import type { SigningKeys } from '../tokens/signing-keys.js';
import { subscribedEndpoints } from '../webhooks/webhooks.repository.js';
import { signCheckpoint } from './audit-checkpoint.js';
import { chainHead, sealChain, type ChainCut } from './audit.repository.js';
import { claimCheckpointDay, type ChainKey } from './audit-verify.repository.js';

export const CHECKPOINT_EVENT = 'audit.checkpoint';

export type DailyCheckpointOutcome = 'sent' | 'already_sent' | 'no_endpoint';

/**
 * The day's checkpoint of one chain, as an `audit.checkpoint` event to the account's endpoints of
 * that mode subscribed to it (docs/api.md, "Audit log"). Sealed first, so the head is current and
 * its MAC checked (a head moved without the key is marked before it is signed). Once per chain and
 * day: a retried or repeated run sends nothing twice. Nothing is written for a chain whose account
 * has no endpoint to send it to.
 */
export async function sendDailyCheckpoint(
  deps: { db: Db; keys: SigningKeys; now?: () => Date; onCut?: (cut: ChainCut) => void },
  chain: ChainKey,
  day: string,
): Promise<DailyCheckpointOutcome> {
  await sealChain(deps.db, chain.accountId, chain.livemode, deps.onCut);
  return deps.db.transaction().execute(async (trx) => {
    const endpoints = await subscribedEndpoints(trx, chain, CHECKPOINT_EVENT);
    if (endpoints.length === 0) return 'no_endpoint';
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
