import type { Compilable } from 'kysely';

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
}
