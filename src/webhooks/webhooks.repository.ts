import { sql } from 'kysely';
import type { Db, DbOrTrx, Selectable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../db/database.js';
import { afterRow } from '../db/pagination.js';
import { inScope, type Scope } from '../db/scope.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export async function insertEndpoint(db: DbOrTrx, row: EndpointRow): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values({ ...row, events: JSON.stringify(row.events) }).returningAll().executeTakeFirstOrThrow();
}

export async function findEndpoint(db: DbOrTrx, scope: Scope, id: string, forUpdate = false) {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .$call(inScope(scope))
    .where('deleted_at', 'is', null);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Whether the scope has (or had: deleted ones count, their deliveries stay listed) the endpoint. */
export async function endpointExists(db: DbOrTrx, scope: Scope, id: string): Promise<boolean> {
  const row = await db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).$call(inScope(scope)).executeTakeFirst();
  return row !== undefined;
}

/** Any tenant's endpoint, deleted or not: for a delivery, which names its endpoint by id. */
export async function findEndpointById(db: DbOrTrx, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateEndpoint(db: DbOrTrx, id: string, set: Partial<Omit<EndpointRow, 'id' | 'events'>> & { events?: string[] }) {
  const { events, ...rest } = set;
  return db
    .updateTable('webhook_endpoints')
    .set({ ...rest, ...(events ? { events: JSON.stringify(events) } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listEndpoints(db: DbOrTrx, scope: Scope, limit: number, cursorId?: string) {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .$call(inScope(scope))
    .where('deleted_at', 'is', null);
  if (cursorId) q = q.where(afterRow('webhook_endpoints', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Enabled, live (not deleted) endpoints of the scope subscribed to the event type or to `*`. */
export async function subscribedEndpoints(db: DbOrTrx, scope: Scope, eventType: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .$call(inScope(scope))
    .where('deleted_at', 'is', null)
    .where('enabled', '=', true)
    .where(sql<boolean>`(events @> ${JSON.stringify([eventType])}::jsonb OR events @> '["*"]'::jsonb)`)
    .execute();
}

/**
 * Of `eventIds`, the events some endpoint would be sent (the test of subscribedEndpoints, for many
 * events in one query): the others need no fan-out.
 */
export async function eventsWithSubscribers(db: DbOrTrx, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`
    SELECT e.id FROM events e
    WHERE e.id IN (${sql.join(eventIds)})
      AND EXISTS (
        SELECT 1 FROM webhook_endpoints w
        WHERE w.account_id = e.account_id AND w.livemode = e.livemode AND w.deleted_at IS NULL AND w.enabled = true
          AND (w.events @> jsonb_build_array(e.type) OR w.events @> '["*"]'::jsonb))`.execute(db);
  return new Set(rows.map((r) => r.id));
}

/** Inserts a delivery unless one with the same workflow id exists; returns it only when new. */
export async function insertDeliveryOnce(db: DbOrTrx, row: Omit<DeliveryRow, 'attempt_count'>): Promise<DeliveryRow | undefined> {
  return db
    .insertInto('webhook_deliveries')
    .values(row)
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findDelivery(db: DbOrTrx, id: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listDeliveries(db: DbOrTrx, scope: Scope, endpointId: string, limit: number, cursorId?: string) {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .$call(inScope(scope));
  if (cursorId) q = q.where(afterRow('webhook_deliveries', cursorId, scope));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export const MAX_ATTEMPTS_SHOWN = 20;

export async function recentAttempts(db: DbOrTrx, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const out = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return out;
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id', 'desc').execute();
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    if (list.length < MAX_ATTEMPTS_SHOWN) list.push(r);
    out.set(r.delivery_id, list);
  }
  return out;
}

/** One attempt and the delivery's running state, together. */
export async function recordAttempt(
  db: Db,
  deliveryId: string,
  a: { attemptedAt: Date; durationMs: number; statusCode: number | null; error: string | null; outcome: 'delivered' | 'retry' | 'failed' },
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({ delivery_id: deliveryId, attempted_at: a.attemptedAt, duration_ms: a.durationMs, status_code: a.statusCode, error: a.error })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempt_count: eb('attempt_count', '+', 1),
        last_status_code: a.statusCode,
        last_error: a.error,
        updated_at: a.attemptedAt,
        ...(a.outcome === 'retry' ? {} : { status: a.outcome, completed_at: a.attemptedAt }),
      }))
      .where('id', '=', deliveryId)
      .execute();
  });
}

export async function markDeliveryFailed(db: DbOrTrx, deliveryId: string, error: string, now: Date) {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, completed_at: now, updated_at: now })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

/** Previous secrets whose grace period has ended are forgotten: they sign nothing any more. */
export async function forgetExpiredPreviousSecrets(db: DbOrTrx, now: Date): Promise<number> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ previous_secret_sealed: null, previous_secret_expires_at: null })
    .where('previous_secret_expires_at', '<=', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
