import { Client, Connection, WithStartWorkflowOperation, WorkflowUpdateFailedError, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type SearchAttributePair } from '@temporalio/common';
import { EngineUnavailable, ResolutionRejected, type HoldEngine, type HoldNames } from '../approvals/hold-engine.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import type { SignalApprovals } from '../kernel/config.js';
import type { HeldAuthorizationInput, ResolutionSummary, ReviewerOutcome } from '../../workflows/held-authorization.types.js';
import { approvalDecisionSignal, resolveUpdate } from '../../workflows/held-authorization.js';
import { clientConnectionOptions, type EngineConnectionSettings } from './connection.js';
import { heldWorkflowId, reviewerUpdateId } from './ids.js';
import { taskQueues } from './task-queues.js';
import { heldDetails, heldMemo, heldSummary } from './hold-metadata.js';
import { clientTracingInterceptors } from './tracing.js';
import { AgentIdKey, AmountMinorKey, ApprovalStatusKey, LivemodeKey, PolicyIdKey, VendorKey } from './search-attributes.js';

export const ENGINE_CONNECT_TIMEOUT_MS = 3_000;
/** A reviewer's HTTP call is answered within this (docs/api.md, "Approvals"): the outcome, or 503 with Retry-After. */
export const APPROVAL_DEADLINE_MS = 10_000;
/** Kept back from the engine's share of that for the database reads before and after the call. */
export const APPROVAL_RESPONSE_MARGIN_MS = 1_000;

export interface TemporalSettings extends EngineConnectionSettings {
  taskQueue: string;
  /** TEMPORAL_ALLOW_SIGNAL_APPROVALS: `off` makes holds started now ignore operators' outcomes (default `test`; the activities enforce the rest). */
  allowSignalApprovals?: SignalApprovals;
  /** Tracing is on (a tracer provider is registered): each engine call is a span, its context sent to the workflow. */
  tracing?: unknown;
}

/**
 * What the service asks of the workflow engine; the one place that talks to Temporal as a client.
 * The holds' part is the approvals feature's port (HoldEngine).
 */
export interface WorkflowGateway extends HoldEngine {
  /** Starts the delivery workflow of one webhook delivery (idempotent by its workflow id). */
  startWebhookDelivery(delivery: { id: string; workflow_id: string }): Promise<'started' | 'already_started'>;
  /** Whether the engine answers right now (for /readyz; never throws). */
  health(): Promise<'up' | 'down'>;
  close(): Promise<void>;
}

export const ENGINE_HEALTH_TIMEOUT_MS = 2_000;
/** Every other call to the engine gives up after this long (well inside the outbox lease). */
export const ENGINE_CALL_DEADLINE_MS = 5_000;

function heldStartOptions(decision: DecisionRow, settings: TemporalSettings, names: HoldNames = {}) {
  const { taskQueue } = settings;
  const input: HeldAuthorizationInput = {
    decisionId: decision.id,
    expiresAt: (decision.expires_at ?? decision.created_at).toISOString(),
    ...(settings.allowSignalApprovals === 'off' ? { signalApprovals: false } : {}),
    // Approval chains (docs/api.md, "Approval chains"), only where they differ from a single
    // approval without escalation.
    ...(decision.approvals_required && decision.approvals_required > 1 ? { approvalsRequired: decision.approvals_required } : {}),
    ...(decision.escalates_at ? { escalatesAt: decision.escalates_at.toISOString() } : {}),
  };
  const searchAttributes: SearchAttributePair[] = [
    { key: AgentIdKey, value: decision.agent_id },
    { key: PolicyIdKey, value: decision.policy_id ?? '' },
    { key: VendorKey, value: decision.vendor },
    { key: AmountMinorKey, value: decision.amount },
    { key: LivemodeKey, value: decision.livemode },
    { key: ApprovalStatusKey, value: 'pending' },
  ];
  return {
    workflowId: heldWorkflowId(decision.id),
    taskQueue,
    args: [input] as [HeldAuthorizationInput],
    // A repeated start (relay retry) is a no-op; a decided request can never start again.
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    typedSearchAttributes: searchAttributes,
    // What an operator sees in the UI's list and on the workflow's page, without opening anything.
    staticSummary: heldSummary(decision, names),
    staticDetails: heldDetails(decision, names),
    memo: heldMemo(decision, names),
  };
}

/** gRPC UNAVAILABLE (14), DEADLINE_EXCEEDED (4), CANCELLED (1): the engine, not the request, is at fault. */
const OUTAGE_CODES = new Set([14, 4, 1]);

/**
 * Whether an error means the engine could not be reached or did not answer. The client wraps the
 * gRPC status in its own errors (ServiceError and others), with the status on `.cause`.
 */
export function isConnectivityError(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'number' && OUTAGE_CODES.has(e.code)) return true;
    if (/connect|unavailable|deadline|timed? ?out|ECONNREFUSED|ECONNRESET/i.test(`${e.name} ${e.message}`)) return true;
  }
  return false;
}

/** Connects lazily and reconnects after a failure, so the API starts and serves while the engine is down. */
export class TemporalGateway implements WorkflowGateway {
  private client?: Promise<Client>;

  constructor(private readonly settings: TemporalSettings) {}

  private async getClient(): Promise<Client> {
    this.client ??= Connection.connect(clientConnectionOptions(this.settings, ENGINE_CONNECT_TIMEOUT_MS))
      .then(async (connection) => {
        const interceptors = this.settings.tracing ? { interceptors: { workflow: await clientTracingInterceptors() } } : {};
        return new Client({ connection, namespace: this.settings.namespace, ...interceptors });
      })
      .catch((err: unknown) => {
        this.client = undefined;
        throw new EngineUnavailable(`workflow engine at ${this.settings.address} is unreachable: ${(err as Error).message}`);
      });
    return this.client;
  }

  async startHeld(decision: DecisionRow, names?: HoldNames): Promise<'started' | 'already_started'> {
    return this.start('heldAuthorization', heldStartOptions(decision, this.settings, names));
  }

  /** Starts a workflow within the call deadline; an existing one with its id is not an error. */
  private async start(workflowType: string, options: WorkflowStartOptions): Promise<'started' | 'already_started'> {
    const client = await this.getClient();
    try {
      await client.withDeadline(Date.now() + ENGINE_CALL_DEADLINE_MS, () => client.workflow.start(workflowType, options));
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
      if (isConnectivityError(err)) throw new EngineUnavailable((err as Error).message);
      throw err;
    }
  }

  async startWebhookDelivery(delivery: { id: string; workflow_id: string }): Promise<'started' | 'already_started'> {
    return this.start('webhookDelivery', {
      workflowId: delivery.workflow_id,
      // A queue of their own: a storm of deliveries never takes the slots approvals need.
      taskQueue: taskQueues(this.settings.taskQueue).webhooks,
      args: [{ deliveryId: delivery.id }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  }

  async heldWorkflowState(decisionId: string): Promise<'running' | 'closed' | 'missing'> {
    const client = await this.getClient();
    try {
      const description = await client.withDeadline(Date.now() + ENGINE_CALL_DEADLINE_MS, () => client.workflow.getHandle(heldWorkflowId(decisionId)).describe());
      return description.status.name === 'RUNNING' ? 'running' : 'closed';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'missing';
      if (isConnectivityError(err)) throw new EngineUnavailable((err as Error).message);
      throw err;
    }
  }

  async restartHeld(decision: DecisionRow, names?: HoldNames): Promise<'started' | 'already_started'> {
    // A closed run may be followed by a new one here (and only here): the hold is still pending.
    return this.start('heldAuthorization', { ...heldStartOptions(decision, this.settings, names), workflowIdReusePolicy: 'ALLOW_DUPLICATE' });
  }

  async notifyResolved(decisionId: string): Promise<void> {
    const client = await this.getClient();
    try {
      await client.withDeadline(Date.now() + ENGINE_CALL_DEADLINE_MS, () =>
        client.workflow.getHandle(heldWorkflowId(decisionId)).signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system', decision_id: decisionId }),
      );
    } catch (err) {
      // Never started, or already finished: nothing to tell.
      if (err instanceof WorkflowNotFoundError) return;
      if (isConnectivityError(err)) throw new EngineUnavailable((err as Error).message);
      throw err;
    }
  }

  async resolve(decision: DecisionRow, outcome: ReviewerOutcome, names?: HoldNames, deadlineMs = APPROVAL_DEADLINE_MS - APPROVAL_RESPONSE_MARGIN_MS): Promise<ResolutionSummary> {
    const deadline = Date.now() + deadlineMs;
    const client = await Promise.race([
      this.getClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new EngineUnavailable('workflow engine did not answer in time')), deadlineMs).unref()),
    ]);
    try {
      // Update-with-start: works whether or not the relay has started the workflow yet.
      return await client.withDeadline(deadline, () =>
        client.workflow.executeUpdateWithStart(resolveUpdate, {
          args: [outcome],
          // Deterministic per hold, key, outcome and mark: a retry attaches to the Update already sent.
          updateId: reviewerUpdateId(decision.id, outcome),
          startWorkflowOperation: new WithStartWorkflowOperation('heldAuthorization', heldStartOptions(decision, this.settings, names)),
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowExecutionAlreadyStartedError) {
        // The validator's reason ('already resolved', 'expired') travels as the failure's cause.
        throw new ResolutionRejected((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
      }
      if (Date.now() >= deadline || isConnectivityError(err)) throw new EngineUnavailable((err as Error).message);
      throw err;
    }
  }

  async health(): Promise<'up' | 'down'> {
    try {
      const client = await this.getClient();
      await client.withDeadline(Date.now() + ENGINE_HEALTH_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}));
      return 'up';
    } catch {
      return 'down';
    }
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    await client?.connection.close();
  }
}
