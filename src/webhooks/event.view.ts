import { z } from 'zod';
import { agentSchema } from '../agents/agent.view.js';
import { approvalCompletedDataSchema, approvalEscalatedDataSchema } from '../approvals/approval-events.js';
import { auditCheckpointDataSchema } from '../audit/audit-events.js';
import { decisionEventDataSchema } from '../decisions/decision.view.js';
import { cardCaptureSchema } from '../rail-connections/card-capture.view.js';
import { listOf } from '../db/pagination.js';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import type { EventType } from '../events/events.repository.js';

/** What `data` holds for each event type: the one list of event types and their payloads. */
export const EVENT_DATA = {
  'authorize.approved': decisionEventDataSchema,
  'authorize.denied': decisionEventDataSchema,
  'authorize.held': decisionEventDataSchema,
  'agent.frozen': agentSchema,
  'approval.completed': approvalCompletedDataSchema,
  'authorization.captured': decisionEventDataSchema,
  'authorization.voided': decisionEventDataSchema,
  'authorization.expired': decisionEventDataSchema,
  'approval.escalated': approvalEscalatedDataSchema,
  'authorization.adjusted': z.union([decisionEventDataSchema, cardCaptureSchema]),
  'audit.checkpoint': auditCheckpointDataSchema,
} as const satisfies Record<EventType, z.ZodType>;

const EVENT_SUMMARY: Record<EventType, string> = {
  'authorize.approved': 'A POST /v1/authorize call returned approved; `data` is the decision without its token',
  'authorize.denied': 'A POST /v1/authorize call returned denied; `data` is the decision',
  'authorize.held': 'A request was held for human review; `data` is the decision',
  'agent.frozen': 'An agent was frozen (by a reviewer or by runaway protection); `data` is the agent',
  'approval.completed': 'A held request was resolved (approved, denied or expired)',
  'authorization.captured': 'The rail captured an approval (all or part of it); `data` is the decision',
  'authorization.voided': 'An uncaptured approval was voided; `data` is the decision',
  'authorization.expired': 'An approval was not captured in time and expired; `data` is the decision',
  'approval.escalated': 'A hold is still pending at its escalation time (`escalate_after_seconds`)',
  'authorization.adjusted':
    'A rail that asks first reported a new amount for a captured approval (a partial reversal, a settlement, a refund, a capture above what was approved); `data` is the decision, `capture.captured_amount` the amount it counts now and `capture.over_capture_amount` how far that went over what was approved for the card authorization. For money a card moved that no decision approved (a capture on a declined authorization, on one approved on the connection\'s `on_timeout` answer, on one never seen, a force post), `data` is a `card_capture`: counted against its agent at once',
  'audit.checkpoint': "The day's signed checkpoint of the account and mode's audit chain (sent once a day when AUDIT_CHECKPOINT_WEBHOOKS is on)",
};
export const eventSummary = (type: EventType) => EVENT_SUMMARY[type];

const eventTypes = Object.keys(EVENT_DATA) as [EventType, ...EventType[]];

export const eventSchema = z
  .discriminatedUnion(
    'event',
    eventTypes.map((type) =>
      z.object({
        id: idOf('evt', 'Event id'),
        object: z.literal('event'),
        event: z.literal(type),
        data: EVENT_DATA[type],
        timestamp: instant('Time of the event'),
        livemode: livemodeField,
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .describe('An event, as `GET /v1/events` shows it; `data` depends on `event`.');

// A type, not an interface: the handlers' answers are checked against `eventSchema`'s record type.
export type EventView = {
  id: string;
  object: 'event';
  event: EventType;
  data: Record<string, unknown>;
  timestamp: string;
  livemode: boolean;
};

export const eventListSchema = listOf(eventSchema, 'events');

export function toEventView(row: { id: string; type: string; data: Record<string, unknown>; created_at: Date; livemode: boolean }): EventView {
  return { id: row.id, object: 'event', event: row.type as EventType, data: row.data, timestamp: row.created_at.toISOString(), livemode: row.livemode };
}

/**
 * The body of a webhook delivery of one event type (built by `buildSignedDelivery`): the event
 * envelope of docs/api.md ("Delivery") plus its id.
 */
export const webhookPayloadSchema = (type: EventType) =>
  z
    .object({
      id: idOf('evt', 'Event id: receivers dedupe by it'),
      event: z.literal(type),
      data: EVENT_DATA[type],
      timestamp: instant('Time of the event'),
      signature: z
        .string()
        .regex(/^sha256=[0-9a-f]{64}$/)
        .describe('`sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as serialized here; verify the X-Service-Signature header instead, over the raw body'),
    })
    .describe(`The \`${type}\` webhook body. ${EVENT_SUMMARY[type]}.`);
