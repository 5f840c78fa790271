import type { DbOrTrx, VelocityLimit } from '../db/database.js';
import { recentLookalikes, velocityState } from './authorization.repository.js';
import { normalizeVendor } from '../policies/vendor.js';

/**
 * The state the velocity and duplicate rules need, read under the agent's row lock (so it is
 * exact under concurrency). Nothing is read for rules the policy does not use.
 */
export async function loadSafetyInputs(
  db: DbOrTrx,
  agentId: string,
  policy: { velocity_limits?: readonly VelocityLimit[] | null; duplicate_window_seconds?: number | null } | undefined,
  request: { amount: number; currency: string; vendor: string },
  hasIdempotencyKey: boolean,
  now: Date,
): Promise<{ velocity: { count: number; amount: number }[]; duplicateSuspected: boolean }> {
  const limits = policy?.velocity_limits ?? [];
  const velocity = await velocityState(db, agentId, limits.map((l) => l.window_seconds), now);
  let duplicateSuspected = false;
  if (policy?.duplicate_window_seconds && !hasIdempotencyKey) {
    const vendor = normalizeVendor(request.vendor);
    const lookalikes = await recentLookalikes(db, agentId, request, policy.duplicate_window_seconds, now);
    duplicateSuspected = lookalikes.some((d) => normalizeVendor(d.vendor) === vendor);
  }
  return { velocity, duplicateSuspected };
}
