import type { EvaluatedPolicy } from '../../src/policies/evaluate.js';

/** A policy as `evaluate` sees it: generous budgets, no lists, no threshold; override what the test is about. */
export const evaluatedPolicy = (over: Partial<EvaluatedPolicy> = {}): EvaluatedPolicy => ({
  id: 'pol_1',
  active: true,
  currency: 'USD',
  budget_monthly: 100_000,
  budget_daily: null,
  budget_single_max: 10_000,
  vendor_allowlist: [],
  vendor_denylist: [],
  require_approval_above: null,
  categories_allowed: [],
  ...over,
});
