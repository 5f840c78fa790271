import type { Db, MandateRef } from '../db/database.js';
import type { AuditInput } from '../audit/audit.repository.js';
import type { RailRef, DecisionView } from '../decisions/decision.view.js';
import type { TokenSigner } from '../tokens/authorization-token.js';
import type { BatchMember, BatchPhase } from './batch-decide.js';
import type { DecisionBatcher } from './decision-batcher.js';
import type { DecisionWaiter } from './decision-waiter.js';
import type { MandateRefusal } from './mandate-request.js';
import type { RailOutcome } from './rail-request.js';

/** What every spend decision path needs (authorization.service.ts, batch-decide.ts, prepare-decision.ts). */
export interface AuthorizationDeps {
  db: Db;
  signer: TokenSigner;
  waiter: DecisionWaiter;
  now?: () => Date;
  /** Told of each decision once committed (metrics); never of an idempotent replay. */
  onDecision?: (outcome: DecisionView['decision']) => void;
  /** Told of the size of each batch committed together (metrics). */
  onBatch?: (size: number) => void;
  /** Told where each committed batch's time went (seconds by phase; metrics). */
  onBatchPhases?: (phases: Readonly<Record<BatchPhase, number>>) => void;
  /** Set by `groupDecisions`: decisions are committed in batches (docs/operations.md, "Group commit"). */
  batcher?: DecisionBatcher<BatchMember, RailOutcome>;
  /** MAX_QUEUE_MS: how long a spend request may wait for its work to start (admission.ts). */
  maxQueueMs?: number | undefined;
  /** Told how long each spend request with a bound waited, and whether it was shed (metrics). */
  onAdmission?: ((waitedMs: number, shed: boolean) => void) | undefined;
}

/**
 * Who a decision is recorded as, and the rail or the mandate that asked for it. With `mandate`, no
 * hold or duplicate step applies, and `refusal` (the mandate's own rules, failed) is the decision.
 */
export type DecisionVia = {
  actor: AuditInput['actor'];
  rail?: RailRef | undefined;
  incrementOf?: string | null | undefined;
  mandate?: MandateRef | undefined;
  /** With `mandate`: the closed mandate's digest, sealed in the record's terms. */
  mandateDigest?: string | undefined;
  refusal?: MandateRefusal | undefined;
};