import type { Json } from './database.js';

/** The tables of the rails that ask first (migration 021; docs/rails/stripe-issuing.md). */
export type RailType = 'stripe_issuing';

export interface RailConnectionsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  type: RailType;
  /** AES-256-GCM, the connection id as authenticated data (rail-connections/signing-secret.ts). */
  signing_secret_sealed: string;
  stripe_version: string;
  on_timeout: 'decline' | 'approve';
  created_at: Date;
  deleted_at: Date | null;
}

export type RailAnswerOutcome = 'matched' | 'decided' | 'declined' | 'timeout';

/**
 * One request event a connection answered (migrations 021, 024): the first request of a card
 * authorization, which also keeps the card's later life (`stripe_*`), or a later one for an
 * increase (`increment`).
 */
export interface RailAuthorizationsTable {
  connection_id: string;
  authorization_id: string;
  account_id: string;
  livemode: boolean;
  request_event_id: string;
  agent_id: string | null;
  decision_id: string | null;
  outcome: RailAnswerOutcome;
  approved: boolean;
  reason_code: string | null;
  answer: Json<Record<string, unknown>>;
  /** What this answer's decision counts for the card authorization now. */
  counted_amount: number;
  /** What this answer approved for the card authorization (0 when declined). */
  approved_amount: number;
  increment: boolean;
  stripe_approved: boolean | null;
  stripe_status: string | null;
  stripe_amount: number | null;
  /** Unix seconds of the event the stored `stripe_amount` came from: an older one never overwrites it. */
  stripe_amount_at: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface RailEventsTable {
  connection_id: string;
  event_id: string;
  type: string;
  received_at: Date;
}

export interface RailTransactionsTable {
  connection_id: string;
  transaction_id: string;
  authorization_id: string | null;
  type: string;
  /** As the rail reports it: negative for a capture, positive for a refund. */
  amount: number;
  currency: string;
  created_at: Date;
}

/** What a card moved that no decision approved (migration 028): one row per authorization, or per force-posted transaction. */
export interface RailCardCapturesTable {
  connection_id: string;
  /** The authorization id, or the transaction id of a force post. */
  capture_key: string;
  authorization_id: string | null;
  transaction_id: string | null;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  currency: string;
  /** What it counts against the agent now (captures less refunds, never below zero). */
  counted_amount: number;
  spend_month: string;
  spend_day: string;
  created_at: Date;
  updated_at: Date;
}
