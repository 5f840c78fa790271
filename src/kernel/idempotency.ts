import type { Compilable } from 'kysely';
import { conflict } from './errors.js';

/**
 * A request's Idempotency-Key, handed to the service that executes it, so the service stores the
 * response inside its own transaction and the two commit together. `Trx` is the transaction type of
 * the database the response is stored in.
 */
export interface IdempotencyHandle<Trx> {
  key: string;
  complete(trx: Trx, status: number, body: string): Promise<void>;
  /** The same store as a statement, so a service can write it together with its own rows. */
  completion?(trx: Trx, status: number, body: string): Compilable;
  /** The same store as a row (the body sealed), so a service can write many in one statement. */
  stored?(status: number, body: string): StoredResponse;
}

/** A response to store under its key, as `idempotency_keys` holds it. */
export interface StoredResponse {
  account_id: string;
  livemode: boolean;
  api_key_id: string;
  key: string;
  response_status: number;
  response_type: string;
  /** Sealed: the stored body is never readable without the server's key. */
  response_body: string;
  /** The claim it is stored under (checked when written). */
  claim_id: string | null;
}

/** SQLSTATE of `spend_auth_claim_held` (migration 029): the request's claim of its key was taken over. */
export const CLAIM_LOST_SQLSTATE = 'SA410';

/** Whether a database error is `spend_auth_claim_held`'s refusal. */
export const isClaimLost = (err: unknown) => (err as { code?: unknown } | null)?.code === CLAIM_LOST_SQLSTATE;

/** The key's claim was taken over by a later request (this one stalled past the claim's lifetime): nothing of it commits. */
export const claimLost = () =>
  conflict('This Idempotency-Key was taken over by a later request with the same key while this one was delayed; the answer stored is that one. Retry to get it.', 'Idempotency-Key');
