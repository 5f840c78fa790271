/**
 * What verify remembers of a database's mandates (design §3.10): the facts of a mandate that never
 * change once it is issued (its id, agent and category, and its agent key's public JWK), by account,
 * mode and id, so a presentation of a mandate read before skips the unlocked read (its changing
 * state is read under the locks); and the closed mandates decided here, whose presentations take
 * that read again, where a replay is answered by one statement. Bounded, least recent dropped first.
 */
import type { Scope } from '../db/scope.js';
import type { MandateWithKey } from './presentations.repository.js';

/** What never changes of an issued mandate (no statement updates these columns; agent keys are immutable). */
export type MandateFacts = Pick<MandateWithKey, 'id' | 'agent_id' | 'category' | 'key_jwk'>;

const MAX_MANDATES = 10_000;
const MAX_DECIDED = 10_000;

/** A bounded map whose reads count as uses: past `max`, the least recently used entry goes. */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
}

interface Known {
  mandates: Recent<MandateFacts>;
  decided: Recent<true>;
}

/** Per database (a test process runs several): the facts of one are never another's. */
const byDatabase = new WeakMap<object, Known>();

const mandateKey = (scope: Scope, id: string) => `${scope.accountId}\0${scope.livemode}\0${id}`;

export function knownMandates(db: object) {
  let known = byDatabase.get(db);
  if (!known) {
    known = { mandates: new Recent(MAX_MANDATES), decided: new Recent(MAX_DECIDED) };
    byDatabase.set(db, known);
  }
  const { mandates, decided } = known;
  return {
    /** The facts of mandate `id` of `scope`, when it was read before. */
    facts: (scope: Scope, id: string): MandateFacts | undefined => mandates.get(mandateKey(scope, id)),
    /** Keeps what never changes of a mandate read in `scope`. */
    remember: (scope: Scope, row: MandateWithKey): void =>
      mandates.set(mandateKey(scope, row.id), { id: row.id, agent_id: row.agent_id, category: row.category, key_jwk: row.key_jwk }),
    /** Whether the closed mandate `closedDigest` was decided (or replayed) here. */
    decided: (closedDigest: string): boolean => decided.get(closedDigest) !== undefined,
    markDecided: (closedDigest: string): void => decided.set(closedDigest, true),
  };
}
