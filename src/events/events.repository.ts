import type { DbOrTrx } from '../db/database.js';
import { newId } from '../ids.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';

export type EventType = 'authorize.approved' | 'authorize.denied' | 'authorize.held' | 'agent.frozen' | 'approval.completed';

/**
 * Records an event and its delivery work in the caller's transaction (transactional outbox).
 * `data` must never carry an authorization token or a secret.
 */
export async function emitEvent(
  trx: DbOrTrx,
  e: { accountId: string; livemode: boolean; type: EventType; data: Record<string, unknown>; now?: Date },
): Promise<string> {
  const id = newId('evt');
  const now = e.now ?? new Date();
  await trx
    .insertInto('events')
    .values({ id, account_id: e.accountId, livemode: e.livemode, type: e.type, data: JSON.stringify(e.data), created_at: now })
    .execute();
  await enqueueOutbox(trx, 'event', id, {}, now);
  return id;
}
