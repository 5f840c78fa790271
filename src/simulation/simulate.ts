import { periodsOf } from '../decisions/spend.repository.js';
import { autoFreezeTips, evaluate, type EvaluatedPolicy } from '../policies/evaluate.js';
import { normalizeVendor } from '../policies/vendor.js';
import { approvalsRequiredFor, escalatesAt } from '../policies/approval-rules.js';
import type { ApprovalRule, AutoFreeze, KycStatus } from '../db/database.js';

export interface SimPolicy extends EvaluatedPolicy {
  auto_freeze?: AutoFreeze | null;
  approval_rules?: readonly ApprovalRule[];
  escalate_after_seconds?: number | null;
}

export interface SimRequest {
  decisionId?: string;
  agentId: string;
  amount: number;
  currency: string;
  vendor: string;
  category: string | null;
  metadata: Record<string, unknown>;
  hasIdempotencyKey: boolean;
  at: Date;
  actual?: { decision: string; reason_code: string | null };
}

/** What counts for velocity and duplicates: approved spends and pending holds, in time order. */
export interface LedgerEntry {
  at: Date;
  amount: number;
  currency: string;
  vendor: string;
}

export interface AgentSimState {
  kyc_status: KycStatus;
  ledger: LedgerEntry[];
  denials: Date[];
  spend: Map<string, { approved: number; reserved: number }>;
  frozen: boolean;
}

export interface SimResult {
  decision_id?: string;
  request: { agent_id: string; amount: number; currency: string; vendor: string; category: string | null; metadata: Record<string, unknown> };
  would_be: { decision: 'approved' | 'denied' | 'held'; reason_code: string | null };
  /** When it would be held: how many approvals it would need and when it would escalate (null: never). */
  hold?: { approvals_required: number; escalates_at: string | null };
  actual?: { decision: string; reason_code: string | null };
}

export function emptyAgentState(kyc_status: KycStatus): AgentSimState {
  return { kyc_status, ledger: [], denials: [], spend: new Map(), frozen: false };
}

const bucket = (state: AgentSimState, period: string) => {
  let b = state.spend.get(period);
  if (!b) state.spend.set(period, (b = { approved: 0, reserved: 0 }));
  return b;
};

/**
 * Replays requests in order against a policy, keeping per-agent budgets, velocity windows,
 * duplicates and auto-freeze in memory. Every outcome comes from the one `evaluate` the live path
 * uses; only the state it is given is simulated. Simulated holds stay reserved to the end.
 */
export function simulate(policy: SimPolicy, agents: Map<string, AgentSimState>, requests: SimRequest[]): { summary: { approved: number; denied: number; held: number; changed: number }; results: SimResult[] } {
  const summary = { approved: 0, denied: 0, held: 0, changed: 0 };
  const results: SimResult[] = [];
  for (const r of requests) {
    const state = agents.get(r.agentId);
    if (!state) throw new Error(`no state for agent ${r.agentId}`);
    const t = r.at.getTime();
    let wouldBe: SimResult['would_be'];
    let hold: SimResult['hold'];
    if (state.frozen) {
      // Auto-freeze tipped earlier in the run: the live API would refuse with 403 agent_frozen.
      wouldBe = { decision: 'denied', reason_code: 'agent_frozen' };
    } else {
      const periods = periodsOf(r.at);
      const month = bucket(state, periods.month);
      const day = bucket(state, periods.day);
      const velocity = (policy.velocity_limits ?? []).map((l) => {
        const inWindow = state.ledger.filter((e) => e.at.getTime() > t - l.window_seconds * 1000 && e.at.getTime() <= t);
        return { count: inWindow.length, amount: inWindow.reduce((sum, e) => sum + e.amount, 0) };
      });
      const vendor = normalizeVendor(r.vendor);
      const duplicateSuspected =
        !!policy.duplicate_window_seconds &&
        !r.hasIdempotencyKey &&
        state.ledger.some(
          (e) => e.at.getTime() > t - policy.duplicate_window_seconds! * 1000 && e.at.getTime() <= t && e.amount === r.amount && e.currency === r.currency && normalizeVendor(e.vendor) === vendor,
        );
      const outcome = evaluate({
        agent: { kyc_status: state.kyc_status },
        policy,
        request: { amount: r.amount, currency: r.currency, vendor: r.vendor, category: r.category },
        spend: { month: { ...month }, day: { ...day } },
        velocity,
        duplicateSuspected,
      });
      wouldBe = { decision: outcome.decision, reason_code: outcome.reason_code };
      if (outcome.decision === 'held') {
        hold = { approvals_required: approvalsRequiredFor(policy.approval_rules, r.amount), escalates_at: escalatesAt(policy, r.at)?.toISOString() ?? null };
      }
      const entry = { at: r.at, amount: r.amount, currency: r.currency, vendor: r.vendor };
      if (outcome.decision === 'approved') {
        month.approved += r.amount;
        day.approved += r.amount;
        state.ledger.push(entry);
      } else if (outcome.decision === 'held') {
        month.reserved += r.amount;
        day.reserved += r.amount;
        state.ledger.push(entry);
      } else {
        state.denials.push(r.at);
        const rule = policy.auto_freeze;
        if (rule) {
          const recent = state.denials.filter((d) => d.getTime() > t - rule.window_seconds * 1000).length;
          if (autoFreezeTips(rule, recent)) state.frozen = true;
        }
      }
    }
    summary[wouldBe.decision === 'approved' ? 'approved' : wouldBe.decision === 'held' ? 'held' : 'denied'] += 1;
    const changed = r.actual !== undefined && (r.actual.decision !== wouldBe.decision || r.actual.reason_code !== wouldBe.reason_code);
    if (changed) summary.changed += 1;
    results.push({
      ...(r.decisionId ? { decision_id: r.decisionId } : {}),
      request: { agent_id: r.agentId, amount: r.amount, currency: r.currency, vendor: r.vendor, category: r.category, metadata: r.metadata },
      would_be: wouldBe,
      ...(hold ? { hold } : {}),
      ...(r.actual ? { actual: r.actual } : {}),
    });
  }
  return { summary, results };
}
