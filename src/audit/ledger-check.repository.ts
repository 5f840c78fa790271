import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';

/** Mismatches listed by verify (the count covers them all). */
export const LEDGER_EXAMPLES = 10;

/** One place where the books do not balance: `expected` is what the audit records (or the decisions) say, `found` what is stored. */
export interface LedgerMismatch {
  kind: 'decision' | 'spend' | 'mandate' | 'usage';
  /**
   * The decision's id, the agent's id for a spend counter (the period is in `expected` and
   * `found`), the mandate's id for its counters, or the account's id for a month's usage count
   * (the month is in `expected` and `found`).
   */
  id: string;
  expected: Record<string, string | number | null>;
  found: Record<string, string | number | null>;
}

export interface LedgerCheck {
  mismatches: number;
  examples: LedgerMismatch[];
}

interface DecisionMismatchRow {
  id: string;
  d_amount: string | number;
  d_currency: string;
  d_vendor: string;
  d_agent_id: string;
  d_decision: string;
  d_capture_status: string | null;
  d_captured_amount: string | number | null;
  d_spend_month: string;
  d_spend_day: string;
  d_mandate_id: string | null;
  r_amount: string | number | null;
  r_currency: string | null;
  r_vendor: string | null;
  r_agent_id: string | null;
  r_decision: string | null;
  r_capture_status: string | null;
  r_captured_amount: string | number | null;
  r_spend_month: string;
  r_spend_day: string;
  r_mandate_id: string | null;
}

const DECISION_FIELDS = [
  ['amount', 'd_amount', 'r_amount'],
  ['currency', 'd_currency', 'r_currency'],
  ['vendor', 'd_vendor', 'r_vendor'],
  ['agent_id', 'd_agent_id', 'r_agent_id'],
  ['decision', 'd_decision', 'r_decision'],
  ['capture_status', 'd_capture_status', 'r_capture_status'],
  ['captured_amount', 'd_captured_amount', 'r_captured_amount'],
  ['spend_month', 'd_spend_month', 'r_spend_month'],
  ['spend_day', 'd_spend_day', 'r_spend_day'],
  ['mandate_id', 'd_mandate_id', 'r_mandate_id'],
] as const;

/**
 * The period a record from before the decision's terms were sealed (migration 030) counts in:
 * its decision's clock, read a moment before the record was made, so a decision row whose period
 * is the record's or that of up to 10 s earlier agrees with it (a decision made at midnight).
 */
const legacyPeriod = (prefix: 'M' | 'D', format: 'YYYY-MM' | 'YYYY-MM-DD', stored: 'd.spend_month' | 'd.spend_day') => {
  const at = (t: string) => `'${prefix}:' || to_char((${t}) AT TIME ZONE 'UTC', '${format}')`;
  return sql.raw(`CASE WHEN ${stored} IN (${at('r.created_at')}, ${at("r.created_at - interval '10 seconds'")}) THEN ${stored} ELSE ${at('r.created_at')} END`);
};

const numeric = (v: string | number | null) => (v === null ? null : typeof v === 'number' ? v : /^-?\d+$/.test(v) ? Number(v) : v);

/** Only the fields that differ, on both sides. */
function decisionMismatch(row: DecisionMismatchRow): LedgerMismatch {
  const expected: LedgerMismatch['expected'] = {};
  const found: LedgerMismatch['found'] = {};
  for (const [name, stored, recorded] of DECISION_FIELDS) {
    const [e, f] = [numeric(row[recorded]), numeric(row[stored])];
    if (e !== f) {
      expected[name] = e;
      found[name] = f;
    }
  }
  return { kind: 'decision', id: row.id, expected, found };
}

/**
 * Decisions whose amount, currency, vendor, agent, outcome, capture (status and amount), periods or
 * mandate differ from their sealed records (DECISIONS §7: never from the row being checked). The outcome expected
 * is the latest the records state: the decision record's, or for a resolved hold its latest
 * `approval.completed` record's. An approval's capture is what its latest lifecycle record says
 * (`authorization.captured`/`.adjusted`: captured, at the record's amount; `.voided`, `.expired`;
 * none: uncaptured). A decision without its record is counted by `decisions_without_record`, not
 * here. One statement: a hash join of the account's decisions with their records.
 */
export async function decisionMismatches(db: DbOrTrx, accountId: string, livemode: boolean): Promise<LedgerCheck> {
  const { rows } = await sql<DecisionMismatchRow & { total: string | number }>`
    WITH completed AS (
      SELECT DISTINCT ON (decision_id) decision_id, decision FROM audit_records
      WHERE account_id = ${accountId} AND livemode = ${livemode} AND type = 'approval.completed'
      ORDER BY decision_id, insert_order DESC),
    settled AS (
      SELECT DISTINCT ON (decision_id) decision_id, type, amount FROM audit_records
      WHERE account_id = ${accountId} AND livemode = ${livemode} AND decision_id IS NOT NULL
        AND type IN ('authorization.captured', 'authorization.adjusted', 'authorization.voided', 'authorization.expired')
      ORDER BY decision_id, insert_order DESC),
    sealed AS (
      SELECT d.id, d.amount AS d_amount, d.currency AS d_currency, d.vendor AS d_vendor, d.agent_id AS d_agent_id, d.decision AS d_decision,
             CASE WHEN d.decision = 'approved' THEN d.capture_status END AS d_capture_status,
             CASE WHEN d.decision = 'approved' AND d.capture_status = 'captured' THEN d.captured_amount END AS d_captured_amount,
             r.amount AS r_amount, r.currency AS r_currency, r.vendor AS r_vendor, r.agent_id AS r_agent_id,
             coalesce(c.decision, r.decision) AS r_decision,
             -- What the lifecycle records after the decision say it counts (DECISIONS §7).
             CASE WHEN coalesce(c.decision, r.decision) = 'approved' THEN
               CASE s.type WHEN 'authorization.captured' THEN 'captured' WHEN 'authorization.adjusted' THEN 'captured'
                           WHEN 'authorization.voided' THEN 'voided' WHEN 'authorization.expired' THEN 'expired' ELSE 'uncaptured' END END AS r_capture_status,
             CASE WHEN coalesce(c.decision, r.decision) = 'approved' AND s.type IN ('authorization.captured', 'authorization.adjusted') THEN s.amount END AS r_captured_amount,
             d.spend_month AS d_spend_month, d.spend_day AS d_spend_day, d.mandate->>'id' AS d_mandate_id,
             -- The periods and the mandate the record sealed (its terms; before them, its clock and metadata).
             coalesce(r.terms->>'spend_month', ${legacyPeriod('M', 'YYYY-MM', 'd.spend_month')}) AS r_spend_month,
             coalesce(r.terms->>'spend_day', ${legacyPeriod('D', 'YYYY-MM-DD', 'd.spend_day')}) AS r_spend_day,
             coalesce(r.terms->'mandate'->>'id', CASE WHEN jsonb_typeof(r.metadata->'mandate') = 'object' THEN r.metadata->'mandate'->>'id' END) AS r_mandate_id
      FROM decisions d
      JOIN audit_records r ON r.account_id = ${accountId} AND r.livemode = ${livemode} AND r.type = 'authorization.decision' AND r.decision_id = d.id
      LEFT JOIN completed c ON c.decision_id = d.id
      LEFT JOIN settled s ON s.decision_id = d.id
      WHERE d.account_id = ${accountId} AND d.livemode = ${livemode}),
    bad AS MATERIALIZED (
      SELECT * FROM sealed
      WHERE d_amount IS DISTINCT FROM r_amount OR d_currency IS DISTINCT FROM r_currency OR d_vendor IS DISTINCT FROM r_vendor
         OR d_agent_id IS DISTINCT FROM r_agent_id OR d_decision IS DISTINCT FROM r_decision
         OR d_capture_status IS DISTINCT FROM r_capture_status OR d_captured_amount IS DISTINCT FROM r_captured_amount
         OR d_spend_month IS DISTINCT FROM r_spend_month OR d_spend_day IS DISTINCT FROM r_spend_day OR d_mandate_id IS DISTINCT FROM r_mandate_id)
    SELECT (SELECT count(*) FROM bad) AS total, first.*
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM bad ORDER BY id LIMIT ${LEDGER_EXAMPLES}) first ON true`.execute(db);
  return { mismatches: Number(rows[0]?.total ?? 0), examples: rows.filter((r) => r.id !== null).map(decisionMismatch) };
}

interface SpendMismatchRow {
  total: string | number;
  agent_id: string | null;
  period: string | null;
  expected_approved: string | number;
  expected_reserved: string | number;
  found_approved: string | number;
  found_reserved: string | number;
}

/**
 * Agent spend counters (each period of each agent of the account and mode) against the sum
 * recomputed from the decisions, by the rule every change of `agent_spend` follows (docs/api.md,
 * "Audit log"): an approval counts its amount in its own month and day until settled, then what
 * was captured (an adjustment's final amount included); a void or an expiry counts nothing; a
 * pending hold reserves its amount; denials count nothing; what a card moved that no decision
 * approved (`rail_card_captures`, DECISIONS §17) counts its amount. A counter row at zero and a
 * missing one are the same. One aggregate statement over the decisions and the counters.
 */
export async function spendMismatches(db: DbOrTrx, accountId: string, livemode: boolean): Promise<LedgerCheck> {
  const { rows } = await sql<SpendMismatchRow>`
    WITH by_decision AS (
      SELECT d.agent_id, p.period,
             sum(CASE WHEN d.decision <> 'approved' THEN 0
                      WHEN d.capture_status = 'captured' THEN d.captured_amount
                      WHEN d.capture_status IN ('voided', 'expired') THEN 0
                      ELSE d.amount END) AS approved,
             sum(CASE WHEN d.decision = 'held' THEN d.amount ELSE 0 END) AS reserved
      FROM decisions d CROSS JOIN LATERAL (VALUES (d.spend_month), (d.spend_day)) AS p(period)
      WHERE d.account_id = ${accountId} AND d.livemode = ${livemode} AND d.decision IN ('approved', 'held')
      GROUP BY d.agent_id, p.period),
    card_moved AS (
      SELECT c.agent_id, p.period, sum(c.counted_amount) AS approved
      FROM rail_card_captures c CROSS JOIN LATERAL (VALUES (c.spend_month), (c.spend_day)) AS p(period)
      WHERE c.account_id = ${accountId} AND c.livemode = ${livemode}
      GROUP BY c.agent_id, p.period),
    counted AS (
      SELECT agent_id, period, sum(approved) AS approved, sum(reserved) AS reserved
      FROM (SELECT agent_id, period, approved, reserved FROM by_decision UNION ALL SELECT agent_id, period, approved, 0 FROM card_moved) u
      GROUP BY agent_id, period),
    kept AS (
      SELECT s.agent_id, s.period, s.approved, s.reserved FROM agent_spend s JOIN agents a ON a.id = s.agent_id
      WHERE a.account_id = ${accountId} AND a.livemode = ${livemode}),
    bad AS MATERIALIZED (
      SELECT coalesce(k.agent_id, c.agent_id) AS agent_id, coalesce(k.period, c.period) AS period,
             coalesce(c.approved, 0) AS expected_approved, coalesce(c.reserved, 0) AS expected_reserved,
             coalesce(k.approved, 0) AS found_approved, coalesce(k.reserved, 0) AS found_reserved
      FROM counted c FULL JOIN kept k ON k.agent_id = c.agent_id AND k.period = c.period
      WHERE coalesce(c.approved, 0) <> coalesce(k.approved, 0) OR coalesce(c.reserved, 0) <> coalesce(k.reserved, 0))
    SELECT (SELECT count(*) FROM bad) AS total, first.*
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM bad ORDER BY agent_id, period LIMIT ${LEDGER_EXAMPLES}) first ON true`.execute(db);
  return {
    mismatches: Number(rows[0]?.total ?? 0),
    examples: rows
      .filter((r) => r.agent_id !== null)
      .map((r) => ({
        kind: 'spend' as const,
        id: r.agent_id!,
        expected: { period: r.period, approved: Number(r.expected_approved), reserved: Number(r.expected_reserved) },
        found: { period: r.period, approved: Number(r.found_approved), reserved: Number(r.found_reserved) },
      })),
  };
}

interface MandateMismatchRow {
  total: string | number;
  id: string | null;
  expected_uses: string | number;
  expected_budget_used: string | number;
  found_uses: string | number | null;
  found_budget_used: string | number | null;
}

const countOrNull = (v: string | number | null) => (v === null ? null : Number(v));

/**
 * Mandate counters (DECISIONS §20) against their approved decisions: `uses` is the number of
 * decisions approved under the mandate (`decisions.mandate->>'id'`), `budget_used` the sum of
 * their amounts as approved. Captures, voids and expiries change neither (they free the agent's
 * budget, never the mandate's), and denials count nothing. An approval naming a mandate this
 * account and mode does not hold is listed too, with `found` null: its use is counted nowhere.
 * One aggregate statement over the decisions and the mandates.
 */
export async function mandateMismatches(db: DbOrTrx, accountId: string, livemode: boolean): Promise<LedgerCheck> {
  const { rows } = await sql<MandateMismatchRow>`
    WITH counted AS (
      SELECT d.mandate->>'id' AS mandate_id, count(*) AS uses, sum(d.amount) AS budget_used
      FROM decisions d
      WHERE d.account_id = ${accountId} AND d.livemode = ${livemode} AND d.decision = 'approved' AND d.mandate->>'id' IS NOT NULL
      GROUP BY d.mandate->>'id'),
    kept AS (
      SELECT m.id, m.uses, m.budget_used FROM mandates m WHERE m.account_id = ${accountId} AND m.livemode = ${livemode}),
    bad AS MATERIALIZED (
      SELECT coalesce(k.id, c.mandate_id) AS id,
             coalesce(c.uses, 0) AS expected_uses, coalesce(c.budget_used, 0) AS expected_budget_used,
             k.uses AS found_uses, k.budget_used AS found_budget_used
      FROM counted c FULL JOIN kept k ON k.id = c.mandate_id
      WHERE k.id IS NULL OR k.uses <> coalesce(c.uses, 0) OR k.budget_used <> coalesce(c.budget_used, 0))
    SELECT (SELECT count(*) FROM bad) AS total, first.*
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM bad ORDER BY id LIMIT ${LEDGER_EXAMPLES}) first ON true`.execute(db);
  return {
    mismatches: Number(rows[0]?.total ?? 0),
    examples: rows
      .filter((r) => r.id !== null)
      .map((r) => ({
        kind: 'mandate' as const,
        id: r.id!,
        expected: { uses: Number(r.expected_uses), budget_used: Number(r.expected_budget_used) },
        found: { uses: countOrNull(r.found_uses), budget_used: countOrNull(r.found_budget_used) },
      })),
  };
}

interface UsageMismatchRow {
  total: string | number;
  month: string | null;
  expected: string | number;
  found: string | number;
}

/**
 * The account's billable count per month (`usage_counters`, what it is billed for) against its
 * live decision records: every live decision is one check, counted in the month its record seals
 * (docs/api.md, "Usage"). Test mode is never counted, so there is nothing to check. A month with
 * no counter row and one at zero are the same. One aggregate statement over the records' index.
 */
export async function usageMismatches(db: DbOrTrx, accountId: string, livemode: boolean): Promise<LedgerCheck> {
  if (!livemode) return { mismatches: 0, examples: [] };
  const { rows } = await sql<UsageMismatchRow>`
    WITH recorded AS (
      SELECT substr(coalesce(r.terms->>'spend_month', 'M:' || to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM')), 3) AS month, count(*) AS checks
      FROM audit_records r
      WHERE r.account_id = ${accountId} AND r.livemode = true AND r.type = 'authorization.decision' AND r.decision_id IS NOT NULL
      GROUP BY 1),
    kept AS (
      SELECT month, sum(checks) AS checks FROM usage_counters WHERE account_id = ${accountId} GROUP BY month),
    bad AS MATERIALIZED (
      SELECT coalesce(k.month, r.month) AS month, coalesce(r.checks, 0) AS expected, coalesce(k.checks, 0) AS found
      FROM recorded r FULL JOIN kept k ON k.month = r.month
      WHERE coalesce(r.checks, 0) <> coalesce(k.checks, 0))
    SELECT (SELECT count(*) FROM bad) AS total, first.*
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM bad ORDER BY month LIMIT ${LEDGER_EXAMPLES}) first ON true`.execute(db);
  return {
    mismatches: Number(rows[0]?.total ?? 0),
    examples: rows
      .filter((r) => r.month !== null)
      .map((r) => ({ kind: 'usage' as const, id: accountId, expected: { month: r.month, checks: Number(r.expected) }, found: { month: r.month, checks: Number(r.found) } })),
  };
}

/** All checks in the caller's snapshot: decisions against their records first, then the spend counters, the mandates' counters and the usage counts. */
export async function checkLedger(db: DbOrTrx, accountId: string, livemode: boolean): Promise<LedgerCheck> {
  const checks = [
    await decisionMismatches(db, accountId, livemode),
    await spendMismatches(db, accountId, livemode),
    await mandateMismatches(db, accountId, livemode),
    await usageMismatches(db, accountId, livemode),
  ];
  return {
    mismatches: checks.reduce((n, c) => n + c.mismatches, 0),
    examples: checks.flatMap((c) => c.examples).slice(0, LEDGER_EXAMPLES),
  };
}
