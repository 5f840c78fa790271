import { Client, Connection, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type SearchAttributePair } from '@temporalio/common';
import type { DecisionRow } from '../authorization/decision.view.js';
import type { HeldAuthorizationInput, ResolutionSummary, ReviewerOutcome } from '../../workflows/held-authorization.types.js';
import { approvalDecisionSignal, resolveUpdate } from '../../workflows/held-authorization.js';
import { heldWorkflowId } from './ids.js';
import { formatMoney } from '../money.js';
import { AgentIdKey, AmountMinorKey, ApprovalStatusKey, LivemodeKey, PolicyIdKey, VendorKey } from './search-attributes.js';

export const ENGINE_CONNECT_TIMEOUT_MS = 3_000;
/** A reviewer's HTTP call waits at most this long for the workflow to record the outcome. */
export const APPROVAL_DEADLINE_MS = 10_000;

/** The engine could not be reached or did not answer in time. */
export class EngineUnavailableError extends Error {
  override name = 'EngineUnavailableError';
}
/** The workflow refused the outcome (already resolved, or closed). */
export class ResolutionRejectedError extends Error {
  override name = 'ResolutionRejectedError';
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** What the service asks of the workflow engine; the one place that talks to Temporal as a client. */
export interface WorkflowGateway {
  startHeld(decision: DecisionRow): Promise<'started' | 'already_started'>;
  /** Starts the delivery workflow of one webhook delivery (idempotent by its workflow id). */
  startWebhookDelivery(delivery: { id: string; workflow_id: string }): Promise<'started' | 'already_started'>;
  /** Tells a held workflow its decision was resolved elsewhere (agent frozen); a missing workflow is fine. */
  notifyResolved(decisionId: string): Promise<void>;
  resolve(decision: DecisionRow, outcome: ReviewerOutcome, deadlineMs?: number): Promise<ResolutionSummary>;
  /** Whether the engine answers right now (for /readyz; never throws). */
  health(): Promise<'up' | 'down'>;
  close(): Promise<void>;
}

export const ENGINE_HEALTH_TIMEOUT_MS = 2_000;

function heldStartOptions(decision: DecisionRow, taskQueue: string) {
  const input: HeldAuthorizationInput = { decisionId: decision.id, expiresAt: (decision.expires_at ?? decision.created_at).toISOString() };
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
    memo: {
      summary: `${formatMoney(decision.amount, decision.currency)} at ${decision.vendor} for agent ${decision.agent_id}`,
      reason: decision.reason ?? '',
      expiresAt: input.expiresAt,
    },
  };
}

const isConnectivityError = (err: unknown): boolean => {
  const e = err as { code?: number; name?: string; message?: string };
  // gRPC UNAVAILABLE (14), DEADLINE_EXCEEDED (4), CANCELLED (1); connection set-up failures.
  return e?.code === 14 || e?.code === 4 || e?.code === 1 || /connect|unavailable|deadline|timed? ?out|ECONNREFUSED/i.test(`${e?.name} ${e?.message}`);
};

/** Connects lazily and reconnects after a failure, so the API starts and serves while the engine is down. */
export class TemporalGateway implements WorkflowGateway {
  private client?: Promise<Client>;

  constructor(private readonly settings: TemporalSettings) {}

  private async getClient(): Promise<Client> {
    this.client ??= Connection.connect({ address: this.settings.address, connectTimeout: ENGINE_CONNECT_TIMEOUT_MS })
      .then((connection) => new Client({ connection, namespace: this.settings.namespace }))
      .catch((err: unknown) => {
        this.client = undefined;
        throw new EngineUnavailableError(`workflow engine at ${this.settings.address} is unreachable: ${(err as Error).message}`);
      });
    return this.client;
  }

  async startHeld(decision: DecisionRow): Promise<'started' | 'already_started'> {
    const client = await this.getClient();
    try {
      await client.workflow.start('heldAuthorization', heldStartOptions(decision, this.settings.taskQueue));
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
      if (isConnectivityError(err)) throw new EngineUnavailableError((err as Error).message);
      throw err;
    }
  }

  async startWebhookDelivery(delivery: { id: string; workflow_id: string }): Promise<'started' | 'already_started'> {
    const client = await this.getClient();
    try {
      await client.workflow.start('webhookDelivery', {
        workflowId: delivery.workflow_id,
        taskQueue: this.settings.taskQueue,
        args: [{ deliveryId: delivery.id }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
      if (isConnectivityError(err)) throw new EngineUnavailableError((err as Error).message);
      throw err;
    }
  }

  async notifyResolved(decisionId: string): Promise<void> {
    const client = await this.getClient();
    try {
      await client.workflow.getHandle(heldWorkflowId(decisionId)).signal(approvalDecisionSignal, { outcome: 'denied', reviewer: 'system' });
    } catch (err) {
      // Never started, or already finished: nothing to tell.
      if (err instanceof WorkflowNotFoundError) return;
      if (isConnectivityError(err)) throw new EngineUnavailableError((err as Error).message);
      throw err;
    }
  }

  async resolve(decision: DecisionRow, outcome: ReviewerOutcome, deadlineMs = APPROVAL_DEADLINE_MS): Promise<ResolutionSummary> {
    const deadline = Date.now() + deadlineMs;
    const client = await Promise.race([
      this.getClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new EngineUnavailableError('workflow engine did not answer in time')), deadlineMs).unref()),
    ]);
    try {
      // Update-with-start: works whether or not the relay has started the workflow yet.
      return await client.withDeadline(deadline, () =>
        client.workflow.executeUpdateWithStart(resolveUpdate, {
          args: [outcome],
          // The same reviewer asking the same thing again (a retry after a timeout) attaches to
          // the Update already sent instead of sending a second one.
          updateId: `${outcome.outcome === 'approved' ? 'approve' : 'deny'}-${decision.id}-${outcome.reviewer ?? 'anonymous'}`,
          startWorkflowOperation: new WithStartWorkflowOperation('heldAuthorization', heldStartOptions(decision, this.settings.taskQueue)),
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new ResolutionRejectedError((err as Error).message);
      }
      if (Date.now() >= deadline || isConnectivityError(err)) throw new EngineUnavailableError((err as Error).message);
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
