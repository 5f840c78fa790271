import type { DbOrTrx } from '../db/database.js';

/** Topics the relay knows how to carry out after commit. */
export type OutboxTopic = 'held_decision' | 'event';

/** Written inside the caller's transaction, so the follow-up exists exactly when the change does. */
export async function enqueueOutbox(trx: DbOrTrx, topic: OutboxTopic, refId: string, payload: Record<string, unknown> = {}, now = new Date()) {
  await trx
    .insertInto('outbox')
    .values({ topic, ref_id: refId, payload: JSON.stringify(payload), created_at: now, next_attempt_at: now, last_error: null, processed_at: null })
    .execute();
}
