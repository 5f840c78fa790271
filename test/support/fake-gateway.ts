import { createHeldActivities } from '../../activities/held-authorization.js';
import type { DecisionRow } from '../../src/decisions/decision.view.js';
import type { Db } from '../../src/db/database.js';
import { ResolutionRejected } from '../../src/approvals/hold-engine.js';
import type { WorkflowGateway } from '../../src/temporal/gateway.js';
import type { TokenSigner } from '../../src/tokens/authorization-token.js';
import { authorityOf, type ResolutionSummary, type ReviewerOutcome } from '../../workflows/held-authorization.types.js';

/**
 * FAKE workflow engine, for tests on machines without a Temporal server: it records starts and
 * runs the resolution activity inline, as the workflow would. The real workflow is covered by
 * the bundle and replay tests, and by the server tests where a server is given.
 */
export class FakeInlineGateway implements WorkflowGateway {
  /**
   * Every start asked for, in order, repeats included: recorded before the fake deduplicates (as
   * the engine would by workflow id), so a caller that starts a workflow twice is seen doing so.
   */
  readonly started: string[] = [];
  private readonly running = new Set<string>();
  readonly notified: string[] = [];
  private readonly resolved = new Set<string>();
  private readonly approvers = new Map<string, Set<string>>();
  private readonly approvalsInFlight = new Map<string, Array<Promise<ResolutionSummary>>>();
  private readonly activities;

  constructor(deps: { db: Db; signer: TokenSigner }) {
    this.activities = createHeldActivities(deps);
  }

  async startHeld(decision: DecisionRow) {
    this.started.push(decision.id);
    if (this.running.has(decision.id)) return 'already_started' as const;
    this.running.add(decision.id);
    return 'started' as const;
  }

  /** Every delivery start asked for, repeats included (see `started`). */
  readonly webhookDeliveries: string[] = [];
  private readonly deliveriesRunning = new Set<string>();

  async startWebhookDelivery(delivery: { id: string; workflow_id: string }) {
    this.webhookDeliveries.push(delivery.id);
    if (this.deliveriesRunning.has(delivery.id)) return 'already_started' as const;
    this.deliveriesRunning.add(delivery.id);
    return 'started' as const;
  }

  async notifyResolved(decisionId: string) {
    this.notified.push(decisionId);
  }

  async resolve(decision: DecisionRow, outcome: ReviewerOutcome): Promise<ResolutionSummary> {
    // Like the workflow's Update validator: the first outcome wins.
    if (this.resolved.has(decision.id)) throw new ResolutionRejected('already resolved');
    // An approval towards a quorum is recorded; only the last one resolves (as the workflow does).
    if (outcome.outcome === 'approved' && (decision.approvals_required ?? 1) > 1) {
      const approvers = this.approvers.get(decision.id) ?? new Set<string>();
      if (approvers.has(outcome.reviewer ?? '')) throw new ResolutionRejected('already approved');
      this.approvers.set(decision.id, approvers.add(outcome.reviewer ?? ''));
      // As the workflow does: approvals arriving together are answered once all are recorded.
      const inFlight = this.approvalsInFlight.get(decision.id) ?? [];
      const recorded = this.activities.recordApproval({ decisionId: decision.id, note: outcome.note ?? null, reviewer: outcome.reviewer ?? null, via: 'api', ...authorityOf({ ...outcome, via: 'api' }) });
      this.approvalsInFlight.set(decision.id, [...inFlight, recorded]);
      const summary = await recorded;
      if (summary.status !== 'pending') this.resolved.add(decision.id);
      for (let all = this.approvalsInFlight.get(decision.id)!; ; all = this.approvalsInFlight.get(decision.id)!) {
        const settled = await Promise.all(all);
        if (this.approvalsInFlight.get(decision.id)!.length === all.length) return settled.find((s) => s.status !== 'pending') ?? summary;
      }
    }
    this.resolved.add(decision.id);
    return this.activities.resolveHeldDecision({
      decisionId: decision.id,
      outcome: outcome.outcome,
      note: outcome.note ?? null,
      reviewer: outcome.reviewer ?? null,
      via: 'api',
      // The API's mark goes to the activity as the workflow passes it on.
      ...authorityOf({ ...outcome, via: 'api' }),
    });
  }

  async heldWorkflowState(decisionId: string) {
    return this.resolved.has(decisionId) ? ('closed' as const) : this.running.has(decisionId) ? ('running' as const) : ('missing' as const);
  }

  async restartHeld(decision: DecisionRow) {
    this.started.push(decision.id);
    this.running.add(decision.id);
    return 'started' as const;
  }

  async health() {
    return 'up' as const;
  }

  async close() {}
}
