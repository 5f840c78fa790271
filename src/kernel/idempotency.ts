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
}
