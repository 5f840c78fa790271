import { actorOf, ADMIN, requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { decodeCursor, listPage, toPage, type Page } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { invalid, notFound } from '../kernel/errors.js';
import { findEvent, listEvents as listEventRows } from '../events/events.repository.js';
import { newId, randomBase62 } from '../kernel/ids.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import type { ResponseCipher } from '../idempotency/response-cipher.js';
import { checkUrlShape, resolveSafeTarget, UnsafeUrlError } from './ssrf.js';
import { endpointSecretScope } from './endpoint-secret.js';
import {
  endpointExists,
  findEndpoint,
  insertDeliveryOnce,
  insertEndpoint,
  listDeliveries as listDeliveryRows,
  listEndpoints as listEndpointRows,
  recentAttempts,
  subscribedEndpoints,
  updateEndpoint as updateEndpointRow,
  type DeliveryRow,
  type EndpointRow,
} from './webhooks.repository.js';
import type { CreateEndpointInput, RotateSecretInput, UpdateEndpointInput } from './webhooks.schemas.js';
import { toDeliveryView, toEndpointView, type DeletedWebhookEndpointView, type WebhookDeliveryView, type WebhookEndpointWithSecretView } from './webhook.view.js';
import { toEventView } from './event.view.js';

export interface WebhookDeps {
  db: Db;
  allowPrivateUrls: boolean;
  /** Seals endpoint secrets at rest (endpoint-secret.ts): the answer shows a secret once, the table never. */
  secrets: ResponseCipher;
}

const newSecret = () => `whsec_${randomBase62(32)}`;

/** A delivery's workflow id, from the event and the endpoint: creating the delivery twice makes one (its unique key). */
const webhookWorkflowId = (eventId: string, endpointId: string) => `webhook-${eventId}-${endpointId}`;

export { toDeliveryView, toEndpointView } from './webhook.view.js';
export { toEventView } from './event.view.js';

/** Refused at creation (and on update) exactly as at delivery, as 400 naming `url`. */
async function checkUrl(deps: WebhookDeps, url: string, livemode: boolean): Promise<void> {
  try {
    checkUrlShape(url, { livemode, allowPrivate: deps.allowPrivateUrls });
    await resolveSafeTarget(url, { livemode, allowPrivate: deps.allowPrivateUrls });
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw invalid(`The webhook URL is not allowed: ${err.message}.`, 'url');
    throw err;
  }
}

const audit = (trx: DbOrTrx, caller: Caller, type: string, endpoint: EndpointRow, metadata: Record<string, unknown> = {}) =>
  appendAudit(trx, {
    accountId: caller.accountId,
    livemode: caller.livemode,
    type,
    actor: actorOf(caller),
    metadata: { webhook_endpoint_id: endpoint.id, url: endpoint.url, ...metadata },
  });

export async function createEndpoint(deps: WebhookDeps, caller: Caller, input: CreateEndpointInput) {
  requireRole(caller, ADMIN);
  await checkUrl(deps, input.url, caller.livemode);
  const id = newId('we');
  const secret = newSecret();
  return deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const row = await insertEndpoint(trx, {
      id,
      account_id: caller.accountId,
      livemode: caller.livemode,
      url: input.url,
      description: input.description ?? null,
      events: input.events,
      enabled: true,
      secret_sealed: deps.secrets.seal(secret, endpointSecretScope({ id, account_id: caller.accountId })),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    });
    await audit(trx, caller, 'webhook_endpoint.created', row, { events: row.events });
    return { ...toEndpointView(row), secret } satisfies WebhookEndpointWithSecretView;
  });
}

export async function getEndpoint(deps: WebhookDeps, caller: Caller, id: string) {
  requireRole(caller, STAFF);
  const row = await findEndpoint(deps.db, caller, id);
  if (!row) throw notFound('webhook endpoint', 'id');
  return toEndpointView(row);
}

export async function listEndpoints(deps: WebhookDeps, caller: Caller, q: { limit: number; cursor?: string | undefined }) {
  requireRole(caller, STAFF);
  return listPage(q, (limit, after) => listEndpointRows(deps.db, caller, limit, after), toEndpointView);
}

export async function updateEndpoint(deps: WebhookDeps, caller: Caller, id: string, input: UpdateEndpointInput) {
  requireRole(caller, ADMIN);
  if (input.url !== undefined) await checkUrl(deps, input.url, caller.livemode);
  return deps.db.transaction().execute(async (trx) => {
    const before = await findEndpoint(trx, caller, id, true);
    if (!before) throw notFound('webhook endpoint', 'id');
    const row = await updateEndpointRow(trx, id, { ...input, updated_at: new Date() });
    await audit(trx, caller, 'webhook_endpoint.updated', row, { changes: input });
    return toEndpointView(row);
  });
}

/** Soft delete: past deliveries keep their endpoint; pending ones fail permanently at their next attempt. */
export async function deleteEndpoint(deps: WebhookDeps, caller: Caller, id: string) {
  requireRole(caller, ADMIN);
  return deps.db.transaction().execute(async (trx) => {
    const before = await findEndpoint(trx, caller, id, true);
    if (!before) throw notFound('webhook endpoint', 'id');
    const now = new Date();
    await updateEndpointRow(trx, id, { deleted_at: now, enabled: false, updated_at: now });
    await audit(trx, caller, 'webhook_endpoint.deleted', before);
    return { id, object: 'webhook_endpoint', deleted: true } satisfies DeletedWebhookEndpointView;
  });
}

/**
 * A new secret, shown once; deliveries signed from now on use it. Under the endpoint's row lock,
 * so concurrent rotations take turns and each answers the secret it stored. With a grace period
 * the secret it replaces keeps signing too (X-Service-Signature-Previous) until it ends; without
 * one, the previous secret is forgotten at once. Both stay sealed: the replaced one is kept as it
 * was stored (same endpoint, same scope), never opened here.
 */
export async function rotateSecret(deps: WebhookDeps, caller: Caller, id: string, input: RotateSecretInput = { previous_secret_expires_in: 0 }) {
  requireRole(caller, ADMIN);
  return deps.db.transaction().execute(async (trx) => {
    const before = await findEndpoint(trx, caller, id, true);
    if (!before) throw notFound('webhook endpoint', 'id');
    const now = new Date();
    const grace = input.previous_secret_expires_in;
    const secret = newSecret();
    const row = await updateEndpointRow(trx, id, {
      secret_sealed: deps.secrets.seal(secret, endpointSecretScope(before)),
      previous_secret_sealed: grace > 0 ? before.secret_sealed : null,
      previous_secret_expires_at: grace > 0 ? new Date(now.getTime() + grace * 1000) : null,
      updated_at: now,
    });
    await audit(trx, caller, 'webhook_endpoint.secret_rotated', row, { previous_secret_expires_in: grace });
    return { ...toEndpointView(row), secret } satisfies WebhookEndpointWithSecretView;
  });
}

export async function listDeliveries(deps: WebhookDeps, caller: Caller, endpointId: string, q: { limit: number; cursor?: string | undefined }) {
  requireRole(caller, STAFF);
  if (!(await endpointExists(deps.db, caller, endpointId))) throw notFound('webhook endpoint', 'id');
  const rows = await listDeliveryRows(deps.db, caller, endpointId, q.limit + 1, q.cursor ? decodeCursor(q.cursor) : undefined);
  const attempts = await recentAttempts(deps.db, rows.slice(0, q.limit).map((r) => r.id));
  return toPage(rows, q.limit, (r) => toDeliveryView(r, attempts.get(r.id)), (r) => r.id);
}

export async function getEvent(deps: WebhookDeps, caller: Caller, id: string) {
  requireRole(caller, STAFF);
  const row = await findEvent(deps.db, caller, id);
  if (!row) throw notFound('event', 'id');
  return toEventView(row);
}

export async function listEvents(deps: WebhookDeps, caller: Caller, q: { limit: number; cursor?: string | undefined; type?: string | undefined }) {
  requireRole(caller, STAFF);
  const scope = { accountId: caller.accountId, livemode: caller.livemode, type: q.type };
  return listPage(q, (limit, after) => listEventRows(deps.db, scope, limit, after), toEventView);
}

function newDelivery(event: { id: string; account_id: string; livemode: boolean }, endpointId: string, workflowId: string, now: Date) {
  return {
    id: newId('del'),
    account_id: event.account_id,
    livemode: event.livemode,
    event_id: event.id,
    endpoint_id: endpointId,
    workflow_id: workflowId,
    status: 'pending' as const,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/**
 * Relay step for an event: one delivery per enabled, subscribed endpoint, each with its own
 * outbox row to start its workflow. Repeating it creates nothing new (workflow ids are unique).
 */
export async function fanOutEvent(db: Db, eventId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const event = await findEvent(trx, null, eventId);
    if (!event) return 0;
    const endpoints = await subscribedEndpoints(trx, { accountId: event.account_id, livemode: event.livemode }, event.type);
    const now = new Date();
    let created = 0;
    for (const endpoint of endpoints) {
      const delivery = await insertDeliveryOnce(trx, newDelivery(event, endpoint.id, webhookWorkflowId(event.id, endpoint.id), now));
      if (!delivery) continue;
      await enqueueOutbox(trx, 'webhook_delivery', delivery.id, delivery.account_id, now);
      created += 1;
    }
    return created;
  });
}

/** A fresh delivery of a past event to its subscribed endpoints (or one endpoint), with new workflows. */
export async function redeliverEvent(deps: WebhookDeps, caller: Caller, eventId: string, endpointId?: string) {
  requireRole(caller, ADMIN);
  return deps.db.transaction().execute(async (trx) => {
    const event = await findEvent(trx, caller, eventId);
    if (!event) throw notFound('event', 'id');
    let endpoints: EndpointRow[];
    if (endpointId) {
      const one = await findEndpoint(trx, caller, endpointId);
      if (!one) throw notFound('webhook endpoint', 'endpoint_id');
      endpoints = [one];
    } else {
      endpoints = await subscribedEndpoints(trx, caller, event.type);
    }
    const now = new Date();
    const deliveries: DeliveryRow[] = [];
    for (const endpoint of endpoints) {
      const id = newId('del');
      const delivery = await insertDeliveryOnce(trx, { ...newDelivery(event, endpoint.id, `${webhookWorkflowId(event.id, endpoint.id)}-${id}`, now), id });
      if (!delivery) continue;
      await enqueueOutbox(trx, 'webhook_delivery', delivery.id, delivery.account_id, now);
      deliveries.push(delivery);
    }
    return { object: 'list', data: deliveries.map((d) => toDeliveryView(d)), has_more: false, next_cursor: null } satisfies Page<WebhookDeliveryView>;
  });
}
