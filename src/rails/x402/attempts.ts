import { createHash, randomBytes } from 'node:crypto';
import { formatMoney } from '../../kernel/money.js';
import { X402_CURRENCY } from './amounts.js';
import type { Decision } from './decision-client.js';

/** What a requirement asks, as the rail compares it between tries of one purchase. */
export interface Asked {
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  /** Atomic units, as the requirement gives them. */
  amount: string;
  /** Minor units of USD, rounded up. */
  minor: number;
}

/**
 * One purchase of one resource: the Idempotency-Key its decision is asked with, what it asked,
 * and the decision as last seen. A purchase whose call failed before a payment was made (service
 * unreachable, held past the wait, payment not accepted by the server) is parked, and the next
 * call for the same resource takes it up: it finds the same decision instead of asking again.
 */
export interface Attempt {
  resource: string;
  asked: Asked;
  idempotencyKey: string;
  decision?: Decision;
}

/** More parked purchases of one resource than this are dropped, oldest first. */
const MAX_PARKED_PER_RESOURCE = 16;

const sameAddress = (network: string, a: string, b: string) => (network.startsWith('eip155:') ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * `x402-<digest of agent and requirement>-<random per purchase>`: a retry of one purchase sends
 * the same key with the same body (the service then replays its decision, never decides twice);
 * another purchase of the same resource, even at the same price, is a decision of its own.
 */
export function idempotencyKeyFor(agentId: string, resource: string, asked: Asked): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([agentId, resource, asked.scheme, asked.network, asked.asset.toLowerCase(), asked.amount, asked.payTo.toLowerCase()]))
    .digest('hex')
    .slice(0, 40);
  return `x402-${digest}-${randomBytes(12).toString('base64url')}`;
}

const cents = (minor: number) => formatMoney(minor, X402_CURRENCY);

/**
 * Why a requirement may not be paid under a purchase already under way (its decision's or its
 * first request's terms), or undefined when it may: another network or asset, another `payTo`,
 * or more than was asked (approved) at first. Less is allowed: the approval covers it.
 */
export function mismatch(attempt: Attempt, asked: Asked): string | undefined {
  const first = attempt.asked;
  const of = attempt.decision ? `decision ${attempt.decision.decision_id}` : 'the first request for this resource';
  if (asked.network !== first.network || !sameAddress(first.network, asked.asset, first.asset) || asked.scheme !== first.scheme) {
    return `the server now asks to be paid in ${asked.asset} on ${asked.network} (${asked.scheme}), not as in ${of} (${first.asset} on ${first.network}, ${first.scheme})`;
  }
  if (!sameAddress(first.network, asked.payTo, first.payTo)) return `the server now asks to be paid to ${asked.payTo}, not to ${first.payTo} as in ${of}`;
  const approved = attempt.decision?.amount ?? first.minor;
  if (asked.minor > approved) return `the server now asks ${cents(asked.minor)}, more than the ${cents(approved)} of ${of}`;
  return undefined;
}

/** Parked purchases by resource URL; a call takes one up, or starts its own. */
export class AttemptStore {
  private readonly parked = new Map<string, Attempt[]>();

  constructor(private readonly agentId: string) {}

  /** The oldest parked purchase of `resource` (taken out: one call at a time uses it), or a new one. */
  take(resource: string, asked: Asked): { attempt: Attempt; resumed: boolean } {
    const list = this.parked.get(resource);
    const attempt = list?.shift();
    if (list && list.length === 0) this.parked.delete(resource);
    if (attempt) return { attempt, resumed: true };
    return { attempt: { resource, asked, idempotencyKey: idempotencyKeyFor(this.agentId, resource, asked) }, resumed: false };
  }

  /** Keeps a purchase for the next call of its resource: no payment was made under it. */
  park(attempt: Attempt): void {
    const list = this.parked.get(attempt.resource) ?? [];
    list.push(attempt);
    if (list.length > MAX_PARKED_PER_RESOURCE) list.shift();
    this.parked.set(attempt.resource, list);
  }
}
