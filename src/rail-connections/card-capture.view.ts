import { z } from 'zod';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import type { CardCaptureRow } from './card-captures.repository.js';

/** `data` of an `authorization.adjusted` event for a capture no decision approved (DECISIONS §17). */
export const cardCaptureSchema = z
  .object({
    object: z.literal('card_capture'),
    agent_id: idOf('agt', 'The agent whose card moved the money'),
    rail: z
      .object({
        type: z.literal('stripe_issuing'),
        connection_id: idOf('rail', 'The rail connection that reported it'),
        authorization_id: z.string().nullable().describe("The rail's authorization (`iauth_…`); null for a force post"),
        transaction_id: z.string().nullable().describe('The force-posted transaction (`ipi_…`); null when an authorization is named'),
      })
      .describe('Where the card moved the money'),
    amount: z.number().int().min(0).describe('What it counts against the agent now: what was captured, less refunds (minor units)'),
    previous_amount: z.number().int().min(0).describe('What it counted before this event'),
    currency: z.string().describe('ISO 4217, upper case'),
    over_capture_amount: z.number().int().min(0).describe('The same as `amount`: nothing of it was approved'),
    livemode: livemodeField,
    created_at: instant('When it was first counted'),
  })
  .describe('Money a card moved that no decision approved: counted against its agent at once, past its budget if need be.');

export const toCardCaptureView = (row: CardCaptureRow, previous: number) => ({
  object: 'card_capture' as const,
  agent_id: row.agent_id,
  rail: { type: 'stripe_issuing' as const, connection_id: row.connection_id, authorization_id: row.authorization_id, transaction_id: row.transaction_id },
  amount: Number(row.counted_amount),
  previous_amount: previous,
  currency: row.currency,
  over_capture_amount: Number(row.counted_amount),
  livemode: row.livemode,
  created_at: new Date(row.created_at).toISOString(),
});
