import type { Plan } from '../db/database.js';

/** Money is computed in integer micro-dollars (USD 0.000001) with BigInt: never floating point. */
export const MICROS_PER_USD = 1_000_000n;
/** Decimal places of `overage_amount` (USD 0.0001 steps). */
export const AMOUNT_DECIMALS = 4;
/** Decimal places allowed in a per-check rate, so every amount is exact at AMOUNT_DECIMALS. */
export const RATE_DECIMALS = 4;

export interface UsageTerms {
  /** Checks included per month; null = unlimited (Sandbox row). */
  included: number | null;
  /** Price of each check beyond the included ones, in micro-dollars. */
  overageRateMicros: number;
}

/** The plans' terms (docs/api.md, "Usage"). */
export const PLAN_TERMS: Record<Plan, UsageTerms> = {
  sandbox: { included: null, overageRateMicros: 0 },
  starter: { included: 10_000, overageRateMicros: 1_500 },
  growth: { included: 100_000, overageRateMicros: 800 },
  // An enterprise account without terms of its own is billed on Growth's.
  enterprise: { included: 100_000, overageRateMicros: 800 },
};

/** Test mode is the Sandbox row: unlimited and free. */
export const TEST_MODE_TERMS: UsageTerms = PLAN_TERMS.sandbox;

export interface AccountTerms {
  plan: Plan;
  included_checks: number | null;
  overage_rate_micros: number | null;
}

/** An account's live-mode terms: the plan's, or an enterprise account's own where it has them. */
export function termsFor(account: AccountTerms): UsageTerms {
  const plan = PLAN_TERMS[account.plan];
  if (account.plan !== 'enterprise') return plan;
  return {
    included: account.included_checks ?? plan.included,
    overageRateMicros: account.overage_rate_micros ?? plan.overageRateMicros,
  };
}

export interface Overage {
  overage_checks: number;
  /** USD as an exact decimal string with AMOUNT_DECIMALS places, e.g. "12.3450". */
  overage_amount: string;
}

/** Checks beyond the included ones and their price. */
export function overageOf(checks: number, terms: UsageTerms): Overage {
  const overageChecks = terms.included === null ? 0 : Math.max(0, checks - terms.included);
  return { overage_checks: overageChecks, overage_amount: formatUsd(BigInt(overageChecks) * BigInt(terms.overageRateMicros)) };
}

/** Micro-dollars as a USD decimal string with `decimals` places, rounded half up (exact whenever rates have ≤ RATE_DECIMALS places). */
export function formatUsd(micros: bigint, decimals = AMOUNT_DECIMALS): string {
  if (micros < 0n) throw new RangeError('negative amount');
  const step = 10n ** BigInt(6 - decimals);
  const units = (micros + step / 2n) / step;
  if (decimals === 0) return units.toString();
  const scale = 10n ** BigInt(decimals);
  return `${units / scale}.${(units % scale).toString().padStart(decimals, '0')}`;
}

/**
 * Parses a per-check rate in USD ("0.0005") to micro-dollars, exactly. Undefined when the text is
 * not a non-negative decimal with at most RATE_DECIMALS places.
 */
export function parseUsdRate(text: string): number | undefined {
  const m = new RegExp(`^(\\d{1,6})(?:\\.(\\d{1,${RATE_DECIMALS}}))?$`).exec(text.trim());
  if (!m) return undefined;
  const micros = BigInt(m[1]!) * MICROS_PER_USD + BigInt((m[2] ?? '').padEnd(6, '0'));
  return Number(micros);
}
