import { randomBytes } from 'node:crypto';
import { formatMoney } from '../../kernel/money.js';
import { X402_CURRENCY } from './amounts.js';
import type { Decision } from './decision-client.js';

/** What a requirement asks, as the rail compares it with what a decision approved. */
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

/** What the payment signed under a decision binds: recorded with its capture before it is sent. */
export interface Signed {
  nonce: string;
  /** Unix seconds: the signed transfer can be settled until then. */
  validBefore: string;
  payTo: string;
  /** Atomic units the transfer moves. */
  value: string;
}

/**
 * One paid request (one call of the wrapped fetch, i.e. one `PAYMENT-REQUIRED` answer): the
 * Idempotency-Key its decision is asked with, made once for it, what it asked, the decision as
 * last seen and, once a payment was signed under that decision, what was signed. `resumed` when
 * the decision is a parked one (held earlier, never signed under) taken up by this request.
 */
export interface Purchase {
  resource: string;
  asked: Asked;
  idempotencyKey: string;
  decision?: Decision;
  resumed: boolean;
  /** A resumed decision's first requirement, which a later one must not exceed or redirect. */
  parkedAs?: Asked;
  /** Set the moment a payload exists under the decision: no second one is ever signed. */
  signed?: Signed | 'pending';
}

/** A decision no payment was signed under, kept for the next request of its resource (a hold that may still be approved). */
interface Parked {
  asked: Asked;
  decision: Decision;
}

/** More parked decisions of one resource than this are dropped, oldest first. */
const MAX_PARKED_PER_RESOURCE = 16;

const sameAddress = (network: string, a: string, b: string) => (network.startsWith('eip155:') ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * `x402-<random>`: made once per paid request and sent only with that request's own retries of
 * `POST /v1/authorize` (which the service then answers with the same decision). Nothing of the
 * requirement is in it: two purchases of one resource at one price are two decisions.
 */
export const newIdempotencyKey = (): string => `x402-${randomBytes(18).toString('base64url')}`;

const cents = (minor: number) => formatMoney(minor, X402_CURRENCY);

/**
 * Why a requirement may not be paid under a parked decision (what it was asked for), or
 * undefined when it may: another network or asset, another `payTo`, or more than was approved.
 * Less is allowed: the approval covers it.
 */
export function mismatch(first: Asked, decision: Decision, asked: Asked): string | undefined {
  const of = `decision ${decision.decision_id}`;
  if (asked.network !== first.network || !sameAddress(first.network, asked.asset, first.asset) || asked.scheme !== first.scheme) {
    return `the server now asks to be paid in ${asked.asset} on ${asked.network} (${asked.scheme}), not as in ${of} (${first.asset} on ${first.network}, ${first.scheme})`;
  }
  if (!sameAddress(first.network, asked.payTo, first.payTo)) return `the server now asks to be paid to ${asked.payTo}, not to ${first.payTo} as in ${of}`;
  if (asked.minor > decision.amount) return `the server now asks ${cents(asked.minor)}, more than the ${cents(decision.amount)} of ${of}`;
  return undefined;
}

/**
 * Decisions parked by resource URL: held past the wait, or approved while the scheme failed to
 * build the payment. Only decisions no payment was signed under are ever parked; a request takes
 * one up (out of the store: one request at a time uses it) or asks for a decision of its own.
 */
export class ParkedDecisions {
  private readonly parked = new Map<string, Parked[]>();

  /** A new purchase for `resource`, resuming its oldest parked decision when there is one. */
  take(resource: string, asked: Asked): Purchase {
    const list = this.parked.get(resource);
    const found = list?.shift();
    if (list && list.length === 0) this.parked.delete(resource);
    const purchase: Purchase = { resource, asked, idempotencyKey: newIdempotencyKey(), resumed: found !== undefined };
    return found ? { ...purchase, decision: found.decision, parkedAs: found.asked } : purchase;
  }

  /** Keeps a decision for the next request of its resource; refused when a payment was signed under it. */
  park(purchase: Purchase): void {
    if (!purchase.decision || purchase.signed) return;
    const list = this.parked.get(purchase.resource) ?? [];
    list.push({ asked: purchase.parkedAs ?? purchase.asked, decision: purchase.decision });
    if (list.length > MAX_PARKED_PER_RESOURCE) list.shift();
    this.parked.set(purchase.resource, list);
  }
}
