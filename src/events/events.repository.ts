import type { DbOrTrx } from '../db/database.js';
import { newId } from '../kernel/ids.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import { afterRow } from '../db/pagination.js';
import { insertRows } from '../db/statements.js';
import { inScope } from '../db/scope.js';

export type EventType =
  | 'authorize.approved'
  | 'authorize.denied'
  | 'authorize.held'
  | 'agent.frozen'
  | 'approval.completed'
  | 'authorization.captured'
  | 'authorization.voided'
  | 'authorization.expired'
  | 'approval.escalated'
  | 'authorization.adjusted'
  | 'audit.checkpoint';

/**
 * Records an event and its delivery work in the caller's transaction (transactional outbox).
 * `data` must never carry an authorization token or a secret.
 */
export async function emitEvent(
  trx: DbOrTrx,
  e: { accountId: string; livemode: boolean; type: EventType; data: Record<string, unknown>; now?: Date },
): Promise<string> {
  const event = eventRecord(e);
  await trx.executeQuery(eventInsert(event));
  await enqueueOutbox(trx, 'event', event.id, e.accountId, event.created_at);
  return event.id;
}

/** The event row `emitEvent` writes; its caller must also queue an `event` outbox row for it. */
export function eventRecord(e: { accountId: string; livemode: boolean; type: EventType; data: Record<string, unknown>; now?: Date }) {
  return { id: newId('evt'), account_id: e.accountId, livemode: e.livemode, type: e.type, data: JSON.stringify(e.data), created_at: e.now ?? new Date() };
}

export function eventInsert(event: ReturnType<typeof eventRecord>) {
  return insertRows('events', [event]);
}

export const EVENT_TYPES: readonly EventType[] = [
  'authorize.approved',
  'authorize.denied',
  'authorize.held',
  'agent.frozen',
  'approval.completed',
  'authorization.captured',
  'authorization.voided',
  'authorization.expired',
  'approval.escalated',
  'authorization.adjusted',
  'audit.checkpoint',
];

export async function findEvent(db: DbOrTrx, scope: { accountId: string; livemode: boolean } | null, id: string) {
  let q = db.selectFrom('events').selectAll().where('id', '=', id);
  if (scope) q = q.$call(inScope(scope));
  return q.executeTakeFirst();
}

export async function listEvents(db: DbOrTrx, scope: { accountId: string; livemode: boolean; type?: string | undefined }, limit: number, cursorId?: string) {
  let q = db.selectFrom('events').selectAll().$call(inScope(scope));
  if (scope.type) q = q.where('type', '=', scope.type);
  if (cursorId) q = q.where(afterRow('events', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
