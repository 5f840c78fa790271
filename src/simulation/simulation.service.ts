import { requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { invalid, notFound } from '../kernel/errors.js';
import { periodsOf } from '../decisions/spend.repository.js';
import { findPolicyInScope } from '../policies/policies.repository.js';
import { MAX_REPLAYED_REQUESTS } from '../policies/policies.schemas.js';
import type { SimulateInput } from './simulate.schemas.js';
import { toSimulationView } from './simulation.view.js';
import { emptyAgentState, simulate, type AgentSimState, type SimPolicy, type SimRequest } from './simulate.js';
import { agentKycStatuses, decisionsOfAgentsBetween, recordedRequests } from './simulation.repository.js';

const DAY_MS = 24 * 3600 * 1000;

/** How far back the state at the start matters: the month's budget, and the longest rule window. */
function lookbackStart(at: Date, policy: SimPolicy): Date {
  const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const windows = [
    ...(policy.velocity_limits ?? []).map((l) => l.window_seconds),
    policy.duplicate_window_seconds ?? 0,
    policy.auto_freeze?.window_seconds ?? 0,
  ];
  return new Date(Math.min(monthStart.getTime() - DAY_MS, at.getTime() - Math.max(0, ...windows) * 1000));
}

/**
 * Each agent's state as it stood at `at`, rebuilt from recorded decisions: approved spend, holds
 * pending then, and denials, as the live path would have seen them.
 */
async function stateAt(db: DbOrTrx, caller: Caller, agentIds: string[], at: Date, policy: SimPolicy): Promise<Map<string, AgentSimState>> {
  const states = new Map<string, AgentSimState>();
  if (agentIds.length === 0) return states;
  for (const a of await agentKycStatuses(db, caller, agentIds)) states.set(a.id, emptyAgentState(a.kyc_status));
  const prior = await decisionsOfAgentsBetween(db, agentIds, lookbackStart(at, policy), at);
  for (const d of prior) {
    const state = states.get(d.agent_id)!;
    const periods = periodsOf(d.created_at);
    let kind: 'approved' | 'reserved' | 'denied' | 'none';
    if (d.original_decision === 'approved') kind = 'approved';
    else if (d.original_decision === 'denied') kind = 'denied';
    else if (d.resolved_at === null || d.resolved_at >= at) kind = 'reserved';
    else kind = d.status === 'approved' ? 'approved' : 'none';
    if (kind === 'denied') {
      state.denials.push(d.created_at);
      continue;
    }
    if (kind === 'none') continue;
    for (const p of [periods.month, periods.day]) {
      const b = state.spend.get(p) ?? { approved: 0, reserved: 0 };
      b[kind] += d.amount;
      state.spend.set(p, b);
    }
    state.ledger.push({ at: d.created_at, amount: d.amount, currency: d.currency, vendor: d.vendor });
  }
  return states;
}

/**
 * Evaluates a draft or saved policy against given requests or the recorded ones, inside a
 * read-only snapshot: nothing is written anywhere.
 */
export async function simulatePolicy(deps: { db: Db; now?: () => Date }, caller: Caller, input: SimulateInput) {
  requireRole(caller, STAFF);
  return deps.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const saved = input.policy_id ? await findPolicyInScope(trx, caller.accountId, caller.livemode, input.policy_id) : undefined;
      if (input.policy_id && !saved) throw notFound('policy', 'policy_id');
      const draft = input.policy;
      const policy: SimPolicy = draft
        ? {
            id: saved?.id ?? 'pol_draft',
            active: draft.active ?? true,
            currency: draft.currency ?? 'USD',
            budget_monthly: draft.budget_monthly,
            budget_daily: draft.budget_daily ?? null,
            budget_single_max: draft.budget_single_max,
            vendor_allowlist: draft.vendor_allowlist ?? [],
            vendor_denylist: draft.vendor_denylist ?? [],
            require_approval_above: draft.require_approval_above ?? null,
            categories_allowed: draft.categories_allowed ?? [],
            velocity_limits: draft.velocity_limits ?? [],
            duplicate_window_seconds: draft.duplicate_window_seconds ?? null,
            auto_freeze: draft.auto_freeze ?? null,
            approval_rules: draft.approval_rules ?? [],
            escalate_after_seconds: draft.escalate_after_seconds ?? null,
          }
        : saved!;

      let requests: SimRequest[];
      let start: Date;
      if (input.requests) {
        start = deps.now?.() ?? new Date();
        requests = input.requests.map((r) => ({
          agentId: r.agent_id,
          amount: r.amount,
          currency: r.currency,
          vendor: r.vendor,
          category: r.category ?? null,
          metadata: r.metadata ?? {},
          hasIdempotencyKey: false,
          at: start,
        }));
      } else {
        start = input.from!;
        const to = input.to ?? deps.now?.() ?? new Date();
        const rows = await recordedRequests(trx, caller, { from: start, to, policyId: input.policy_id, agentId: input.agent_id }, MAX_REPLAYED_REQUESTS + 1);
        if (rows.length > MAX_REPLAYED_REQUESTS) {
          throw invalid(`The window holds more than ${MAX_REPLAYED_REQUESTS} recorded requests; narrow from/to.`, 'from');
        }
        requests = rows.map((d) => ({
          decisionId: d.id,
          agentId: d.agent_id,
          amount: d.amount,
          currency: d.currency,
          vendor: d.vendor,
          category: d.category,
          metadata: d.metadata,
          hasIdempotencyKey: d.idempotency_key !== null,
          at: d.created_at,
          actual: { decision: d.original_decision, reason_code: d.original_reason_code },
        }));
      }

      const agentIds = [...new Set(requests.map((r) => r.agentId))];
      const states = await stateAt(trx, caller, agentIds, start, policy);
      for (const [i, r] of requests.entries()) {
        if (!states.has(r.agentId)) throw notFound('agent', input.requests ? `requests.${i}.agent_id` : 'agent_id');
      }
      return toSimulationView(saved?.id ?? null, simulate(policy, states, requests));
    });
}
