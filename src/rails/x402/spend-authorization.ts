import type { PaymentCreatedContext, PaymentCreationContext, PaymentCreationFailureContext, PaymentResponseContext, x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { readSignerOptions, type RequestSignerOptions } from '../../client/signing-key.js';
import { formatMoney } from '../../kernel/money.js';
import { AmountError, atomicToMinorUnits, findUsdStablecoin, X402_CURRENCY } from './amounts.js';
import { mismatch, ParkedDecisions, type Asked, type Purchase, type Signed } from './attempts.js';
import { createDecisionClient, MAX_POLL_SECONDS, type Answer, type Decision, type DecisionClient } from './decision-client.js';
import { checkedRequestUrl, hostOf } from './requested-host.js';
import { signedTerms } from './signed-payload.js';

/** What `withSpendAuthorization` needs: where the service is, which key, for which agent. */
export interface SpendAuthorizationOptions {
  /** The service's address including `/v1`, e.g. `https://spend.example.com/v1` (without `/v1` it is added). */
  baseUrl: string;
  /** An API key of the agent (`gc_live_…`/`gc_test_…`, role agent) or an admin key. */
  apiKey: string;
  /** The agent the payments are for (`agt_…`). */
  agentId: string;
  /** How long a held payment waits for a reviewer before the call fails; default 0 (fail at once, naming the decision). */
  maxWaitSeconds?: number;
  /** The longest a signed payment may stay valid (the requirement's `maxTimeoutSeconds`); longer is refused before signing. Default 300. */
  maxValiditySeconds?: number;
  /**
   * Pay only 402 answers whose declared resource is on the host requested, as checked by
   * `requireResourceOnRequestedHost` on the `x402HTTPClient` given to `wrapFetchWithPayment`.
   * Default true; `false` turns the check off explicitly.
   */
  requireResourceOnRequestedHost?: boolean;
  /** The fetch used to call the service (not the paid resource); default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /**
   * The agent's signing key (DECISIONS §19): every call to the service is then signed with it
   * (RFC 9421, tag `web-bot-auth`), as a policy with `require_signed_requests` asks. As
   * `createRequestSigner` of `spend-auth/client` takes it.
   */
  signing?: RequestSignerOptions;
  /** Told of each outcome (decided, refused, signed, captured, …), e.g. for a log. Must not throw. */
  onOutcome?: (outcome: SpendAuthorizationOutcome) => void;
}

/** What happened to one payment, as `onOutcome` reports it. */
export type SpendAuthorizationOutcome =
  | { type: 'approved'; resource: string; decisionId: string; amount: number; currency: string; resumed: boolean }
  | { type: 'refused'; resource: string; reason: string; decisionId?: string }
  /** A payment was signed under the decision and the decision captured in full; then the payment was sent. */
  | { type: 'signed'; resource: string; decisionId: string; amount: number; nonce: string; validBefore: string; payTo: string }
  /** The settlement's transaction was added to the capture. */
  | { type: 'captured'; resource: string; decisionId: string; amount: number; transaction: string; network: string }
  | { type: 'capture_failed'; resource: string; decisionId: string; reason: string }
  | { type: 'settlement_failed'; resource: string; decisionId: string; reason: string }
  | { type: 'payment_not_accepted'; resource: string; decisionId: string; reason: 'payment_required_again' | 'no_payment_response' };

type Abort = { abort: true; reason: string };

/** An approval must stay capturable this long after it is decided (it is captured the moment its payment is signed). */
export const CAPTURE_MARGIN_SECONDS = 30;
/** The default longest validity of a signed payment (`maxValiditySeconds`). */
export const DEFAULT_MAX_VALIDITY_SECONDS = 300;
/** Seconds of clock skew allowed between the requirement's validity and the signed deadline. */
const SIGNING_SKEW_SECONDS = 5;
const TRIES = 3;
const RETRY_MS = [250, 1_000];
/** A metadata value holds at most 500 characters (as on authorize). */
const METADATA_TEXT_MAX = 500;

/** At most 500 UTF-16 units, never ending in half a surrogate pair (the service refuses those). */
const clip = (text: string) => text.slice(0, METADATA_TEXT_MAX).replace(/[\ud800-\udbff]$/, '');
/** A message without its final period, to continue it in a sentence of ours. */
const sentence = (text: string) => text.replace(/\.+$/, '');
const cents = (minor: number) => formatMoney(minor, X402_CURRENCY);
const isoOf = (unixSeconds: string) => {
  const ms = Number(unixSeconds) * 1000;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : unixSeconds;
};
/** Answers worth trying again with the same key: nothing was decided, or we cannot know. */
const transient = (a: Extract<Answer<unknown>, { ok: false }>) =>
  a.code === 'network_error' || a.code === 'unexpected_response' || a.code === 'conflict' || a.code === 'rate_limited' || (a.status ?? 0) >= 500;

/** `call` until it answers, or answers something not worth retrying, at most TRIES times. */
async function withRetries(call: () => Promise<Answer<Decision>>): Promise<Answer<Decision>> {
  let res = await call();
  for (let i = 1; i < TRIES && !res.ok && transient(res); i++) {
    await new Promise((r) => setTimeout(r, RETRY_MS[i - 1]));
    res = await call();
  }
  return res;
}

function checkOptions(o: SpendAuthorizationOptions): void {
  let url: URL | undefined;
  try {
    url = new URL(o.baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new TypeError('withSpendAuthorization: baseUrl must be an http:// or https:// URL');
  if (typeof o.apiKey !== 'string' || o.apiKey.trim() === '') throw new TypeError('withSpendAuthorization: apiKey is required');
  if (typeof o.agentId !== 'string' || o.agentId.trim() === '') throw new TypeError('withSpendAuthorization: agentId is required');
  const wait = o.maxWaitSeconds ?? 0;
  if (!Number.isFinite(wait) || wait < 0) throw new TypeError('withSpendAuthorization: maxWaitSeconds must be a number ≥ 0');
  const validity = o.maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
  if (!Number.isInteger(validity) || validity < 1) throw new TypeError('withSpendAuthorization: maxValiditySeconds must be a whole number of seconds ≥ 1');
  if (o.requireResourceOnRequestedHost !== undefined && typeof o.requireResourceOnRequestedHost !== 'boolean') {
    throw new TypeError('withSpendAuthorization: requireResourceOnRequestedHost must be true or false');
  }
  if (o.signing !== undefined) {
    try {
      readSignerOptions(o.signing);
    } catch (err) {
      throw new TypeError(`withSpendAuthorization: signing.${(err as Error).message}`);
    }
  }
}

/** The paid resource's URL, when it is an http(s) URL. */
function resourceUrl(paymentRequired: PaymentRequired): URL | undefined {
  const raw = paymentRequired.resource?.url;
  if (typeof raw !== 'string') return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Registers this service's authorization on an official x402 client (`x402Client` of
 * `@x402/core`, used through `@x402/fetch`) and returns the same client. Each paid request asks
 * `POST /v1/authorize` for a decision of its own before anything is signed (amount converted to
 * USD cents, rounded up; vendor = the resource's host; category `x402`). Approved → one payment
 * is signed under that decision, the decision is captured in full (the payment's nonce,
 * `valid_before` and `pay_to` in the capture's metadata) and only then is the payment sent; the
 * settlement's transaction is added to the capture when it arrives. Denied, held past
 * `maxWaitSeconds`, an unknown asset, a validity beyond `maxValiditySeconds`, a resource on
 * another host than the one requested, or the service out of reach → nothing is signed. A server
 * that does not answer the paid request with a settlement gets no second payment under that
 * decision: the call fails naming it. docs/rails/x402.md describes every outcome.
 */
export function withSpendAuthorization<C extends x402Client>(client: C, options: SpendAuthorizationOptions): C {
  checkOptions(options);
  const service = createDecisionClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, signing: options.signing }, options.fetch ?? ((req) => fetch(req)));
  const rail = new SpendAuthorizationHooks(service, options);
  client.onBeforePaymentCreation((ctx) => rail.beforePayment(ctx));
  client.onAfterPaymentCreation((ctx) => rail.paymentCreated(ctx));
  client.onPaymentCreationFailure((ctx) => rail.creationFailed(ctx));
  client.onPaymentResponse((ctx) => rail.afterPayment(ctx));
  return client;
}

class SpendAuthorizationHooks {
  private readonly parked = new ParkedDecisions();
  /** The purchase of each paid request (one `PAYMENT-REQUIRED` answer, one call of the wrapped fetch). */
  private readonly purchases = new WeakMap<PaymentRequired, Purchase>();
  /** The purchase each sent payload was signed under, until its paid response. */
  private readonly sent = new WeakMap<PaymentPayload, Purchase>();
  private readonly maxWaitSeconds: number;
  private readonly maxValiditySeconds: number;
  private readonly requireRequestedHost: boolean;

  constructor(
    private readonly service: DecisionClient,
    private readonly options: SpendAuthorizationOptions,
  ) {
    this.maxWaitSeconds = options.maxWaitSeconds ?? 0;
    this.maxValiditySeconds = options.maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
    this.requireRequestedHost = options.requireResourceOnRequestedHost ?? true;
  }

  private report(outcome: SpendAuthorizationOutcome): void {
    try {
      this.options.onOutcome?.(outcome);
    } catch {
      // A reporter's failure must not change what is paid.
    }
  }

  private refuse(resource: string, reason: string, decisionId?: string): Abort {
    this.report({ type: 'refused', resource, reason, ...(decisionId ? { decisionId } : {}) });
    return { abort: true, reason: `spend authorization ${reason}` };
  }

  /** Why this 402 answer may not be paid whatever the policy says, or undefined. */
  private requirementProblem(ctx: PaymentCreationContext, url: URL | undefined): string | undefined {
    if (ctx.paymentRequired.x402Version !== 2) return 'only x402 version 2 payments are authorized';
    if (!url) return 'the payment names no http(s) resource URL';
    const validity = ctx.selectedRequirements.maxTimeoutSeconds;
    if (!Number.isInteger(validity) || validity < 1) return `the server asks for a payment valid for ${String(validity)} s (maxTimeoutSeconds), not a whole number of seconds ≥ 1`;
    if (validity > this.maxValiditySeconds) {
      return `the server asks for a payment valid for ${validity} s (maxTimeoutSeconds), longer than the ${this.maxValiditySeconds} s allowed (maxValiditySeconds)`;
    }
    if (!this.requireRequestedHost) return undefined;
    const requested = checkedRequestUrl(ctx.paymentRequired);
    if (!requested) {
      return 'the URL requested is unknown, so the resource cannot be matched to it: give wrapFetchWithPayment requireResourceOnRequestedHost(new x402HTTPClient(client)), or set requireResourceOnRequestedHost: false';
    }
    if (hostOf(requested) !== url.host.toLowerCase()) return `the payment is declared for ${url.host}, but ${hostOf(requested) ?? requested} was requested`;
    return undefined;
  }

  async beforePayment(ctx: PaymentCreationContext): Promise<void | Abort> {
    const url = resourceUrl(ctx.paymentRequired);
    const resource = url?.href ?? String(ctx.paymentRequired.resource?.url ?? '');
    const earlier = this.purchases.get(ctx.paymentRequired);
    // One payment per decision: a request whose payment was signed is never paid again (a transport's "recovery" included).
    if (earlier?.signed && earlier.decision) {
      return this.refuse(resource, `refused: a payment was already signed under decision ${earlier.decision.decision_id} for this request; paying again needs a new decision (a new request). No payment was made.`, earlier.decision.decision_id);
    }
    const problem = this.requirementProblem(ctx, url);
    if (problem) return this.refuse(resource, `refused: ${problem}. No payment was made.`);
    const req = ctx.selectedRequirements;
    const coin = findUsdStablecoin(req.network, req.asset);
    if (!coin) return this.refuse(resource, `refused: unknown asset ${req.asset} on ${req.network}; only known USD stablecoins are authorized. No payment was made.`);
    let minor: number;
    try {
      minor = atomicToMinorUnits(req.amount, coin.decimals);
    } catch (err) {
      if (!(err instanceof AmountError)) throw err;
      return this.refuse(resource, `refused: ${err.message}. No payment was made.`);
    }
    const asked: Asked = { scheme: req.scheme, network: req.network, asset: req.asset, payTo: req.payTo, amount: req.amount, minor };
    // The same 402 answer again (its approval was never signed under) keeps its decision; a new one is a purchase of its own.
    const purchase = earlier ?? this.parked.take(resource, asked);
    purchase.asked = asked;
    // A parked decision that does not cover this requirement ends here: the next request asks for its own.
    const differs = purchase.parkedAs && purchase.decision ? mismatch(purchase.parkedAs, purchase.decision, asked) : undefined;
    if (differs) return this.refuse(resource, `refused: ${differs}. No payment was made.`, purchase.decision?.decision_id);

    const decided = await this.decide(purchase, url!);
    if ('abort' in decided) return decided;
    const d = decided.decision;
    const uncovered = this.approvalProblem(d, asked);
    if (uncovered) return this.refuse(resource, `refused: ${uncovered}. No payment was made.`, d.decision_id);
    this.purchases.set(ctx.paymentRequired, purchase);
    this.report({ type: 'approved', resource, decisionId: d.decision_id, amount: d.amount, currency: d.currency, resumed: purchase.resumed });
    return undefined;
  }

  /** Why an approved decision does not cover this requirement (also checked against what the service recorded). */
  private approvalProblem(d: Decision, asked: Asked): string | undefined {
    const capture = d.capture;
    if (!capture || capture.status !== 'uncaptured') return `the approval of decision ${d.decision_id} is ${capture?.status ?? 'not capturable'}`;
    if (capture.capture_before !== null && Date.parse(capture.capture_before) - Date.now() < CAPTURE_MARGIN_SECONDS * 1000) {
      return `the approval of decision ${d.decision_id} is past its capture window (${capture.capture_before})`;
    }
    if (asked.minor > d.amount) return `the server asks ${cents(asked.minor)}, more than the ${cents(d.amount)} approved in decision ${d.decision_id}`;
    const payTo = d.metadata.pay_to;
    if (typeof payTo === 'string' && payTo.toLowerCase() !== asked.payTo.toLowerCase()) return `the server asks to be paid to ${asked.payTo}, not to ${payTo} as decision ${d.decision_id} approved`;
    return undefined;
  }

  /** The purchase's decision, once it is no longer pending (or an abort, with the decision parked when it may still be approved). */
  private async decide(purchase: Purchase, url: URL): Promise<{ decision: Decision } | Abort> {
    const resource = purchase.resource;
    const unreachable = (a: Extract<Answer<Decision>, { ok: false }>) => {
      if (transient(a)) this.parked.park(purchase);
      return this.refuse(resource, `could not be decided (${a.code}: ${sentence(a.message)}). No payment was made.`, purchase.decision?.decision_id);
    };
    // The request's own key, for its own retries only: a replay is this request's decision, never another's.
    let answer = purchase.decision
      ? await withRetries(() => this.service.get(purchase.decision!.decision_id, 0))
      : await withRetries(() => this.service.authorize(this.authorizeBody(purchase, url), purchase.idempotencyKey));
    if (!answer.ok) return unreachable(answer);
    // A replay is the decision as first answered: read its state now (a hold may have been resolved since).
    if (answer.replayed) {
      const id = answer.body.decision_id;
      answer = await withRetries(() => this.service.get(id, 0));
    }
    if (!answer.ok) return unreachable(answer);
    let d = (purchase.decision = answer.body);

    const deadline = Date.now() + this.maxWaitSeconds * 1000;
    while (d.status === 'pending') {
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (left <= 0) {
        this.parked.park(purchase);
        const waited = this.maxWaitSeconds > 0 ? ` after waiting ${this.maxWaitSeconds} s` : '';
        return this.refuse(
          resource,
          `held for review (${d.reason_code ?? 'approval_required'}): decision ${d.decision_id} awaits a reviewer${waited}; retry once it is approved. No payment was made.`,
          d.decision_id,
        );
      }
      const polled = await this.service.get(d.decision_id, Math.min(left, MAX_POLL_SECONDS));
      if (!polled.ok) return unreachable(polled);
      d = purchase.decision = polled.body;
    }
    if (d.decision !== 'approved') {
      const why = d.status === 'expired' ? 'the review was not answered in time' : (d.reason ?? 'the policy does not allow it');
      return this.refuse(resource, `denied (${d.reason_code ?? 'policy_denied'}): ${sentence(why)} (decision ${d.decision_id}). No payment was made.`, d.decision_id);
    }
    return { decision: d };
  }

  private authorizeBody(purchase: Purchase, url: URL) {
    const { asked } = purchase;
    return {
      agent_id: this.options.agentId,
      amount: asked.minor,
      currency: X402_CURRENCY,
      vendor: url.host,
      category: 'x402',
      metadata: { network: asked.network, asset: asked.asset, pay_to: asked.payTo, resource: clip(purchase.resource), amount_atomic: asked.amount },
    };
  }

  /** Why a signed payload is not what was approved, or undefined when it is. */
  private payloadProblem(signed: Signed | undefined, purchase: Purchase): string | undefined {
    if (!signed) return 'the signed payment is not a transfer this rail can record (EIP-3009 or Permit2)';
    const { asked } = purchase;
    if (signed.payTo.toLowerCase() !== asked.payTo.toLowerCase()) return `the signed payment pays ${signed.payTo}, not ${asked.payTo} as approved`;
    if (!/^[0-9]{1,78}$/.test(signed.value) || BigInt(signed.value) > BigInt(asked.amount)) return `the signed payment moves ${signed.value} atomic units, more than the ${asked.amount} approved`;
    const validFor = Number(signed.validBefore) - Math.floor(Date.now() / 1000);
    if (!Number.isFinite(validFor) || validFor > this.maxValiditySeconds + SIGNING_SKEW_SECONDS) {
      return `the signed payment stays valid until ${isoOf(signed.validBefore)}, longer than the ${this.maxValiditySeconds} s allowed (maxValiditySeconds)`;
    }
    return undefined;
  }

  /**
   * A payload was signed: the decision is captured in full, with what the payload binds, before
   * it leaves this process. Anything else (no approved purchase, a second payload for one, a
   * payload other than approved, a capture that fails) throws: the payload is then never sent.
   */
  async paymentCreated(ctx: PaymentCreatedContext): Promise<void> {
    const purchase = this.purchases.get(ctx.paymentRequired);
    const resource = purchase?.resource ?? String(ctx.paymentRequired.resource?.url ?? '');
    const d = purchase?.decision;
    if (!purchase || !d || d.decision !== 'approved') throw new Error(`spend authorization refused: a payment for ${resource} was signed without an approval; it was not sent. No payment was made.`);
    if (purchase.signed) throw new Error(`spend authorization refused: a payment was already signed under decision ${d.decision_id}; a second one is not sent. Paying again needs a new decision.`);
    // Marked before anything is awaited: whatever happens next, no second payload under this decision.
    purchase.signed = 'pending';
    const signed = signedTerms(ctx.paymentPayload);
    const wrong = this.payloadProblem(signed, purchase);
    if (wrong) {
      this.report({ type: 'refused', resource, reason: `refused: ${wrong}`, decisionId: d.decision_id });
      throw new Error(`spend authorization refused: ${wrong}; it was not sent (decision ${d.decision_id}). No payment was made.`);
    }
    const terms = signed!;
    const metadata: Record<string, string> = {
      nonce: clip(terms.nonce),
      valid_before: clip(terms.validBefore),
      pay_to: clip(terms.payTo),
      network: clip(purchase.asked.network),
      amount_atomic: clip(terms.value),
    };
    const res = await withRetries(() => this.service.capture(d.decision_id, metadata));
    if (!res.ok) {
      const reason = `${res.code}: ${sentence(res.message)}`;
      this.report({ type: 'capture_failed', resource, decisionId: d.decision_id, reason });
      throw new Error(`spend authorization could not capture decision ${d.decision_id} before sending its payment (${reason}); the signed payment was not sent. No payment was made.`);
    }
    purchase.signed = terms;
    this.sent.set(ctx.paymentPayload, purchase);
    this.report({ type: 'signed', resource, decisionId: d.decision_id, amount: res.body.capture?.captured_amount ?? d.amount, nonce: terms.nonce, validBefore: terms.validBefore, payTo: terms.payTo });
  }

  /** The payment could not be built. A decision nothing was signed under stays for the next request of its resource. */
  async creationFailed(ctx: PaymentCreationFailureContext): Promise<void> {
    const purchase = this.purchases.get(ctx.paymentRequired);
    if (!purchase || purchase.signed) return;
    this.purchases.delete(ctx.paymentRequired);
    this.parked.park(purchase);
  }

  /**
   * After the paid request: a settlement's transaction is added to the capture. Anything else (a
   * 402 again, a failed settlement, no `PAYMENT-RESPONSE` at all) fails the call naming the
   * decision, which stays captured: the signed payment is out and valid until its deadline.
   */
  async afterPayment(ctx: PaymentResponseContext): Promise<void> {
    const purchase = this.sent.get(ctx.paymentPayload);
    if (!purchase?.decision || !purchase.signed || purchase.signed === 'pending') return;
    this.sent.delete(ctx.paymentPayload);
    const { resource } = purchase;
    const d = purchase.decision;
    const signed = purchase.signed;
    const settled = ctx.settleResponse;
    if (settled?.success) {
      const metadata: Record<string, string> = { transaction: clip(settled.transaction), settled_network: clip(settled.network) };
      if (settled.payer) metadata.payer = clip(settled.payer);
      const res = await withRetries(() => this.service.addToCapture(d.decision_id, metadata));
      if (res.ok) this.report({ type: 'captured', resource, decisionId: d.decision_id, amount: res.body.capture?.captured_amount ?? d.amount, transaction: settled.transaction, network: settled.network });
      else this.report({ type: 'capture_failed', resource, decisionId: d.decision_id, reason: `${res.code}: ${res.message}` });
      return;
    }
    let why: string;
    if (settled) {
      const reason = settled.errorReason ?? settled.errorMessage ?? 'settlement failed';
      why = `the server reports that the settlement failed (${reason})`;
      await withRetries(() => this.service.addToCapture(d.decision_id, { settlement_error: clip(reason) }));
      this.report({ type: 'settlement_failed', resource, decisionId: d.decision_id, reason });
    } else {
      const again = ctx.paymentRequired !== undefined;
      why = again ? 'the server answered the paid request with 402 again' : 'the server answered the paid request without a settlement (no PAYMENT-RESPONSE)';
      this.report({ type: 'payment_not_accepted', resource, decisionId: d.decision_id, reason: again ? 'payment_required_again' : 'no_payment_response' });
    }
    throw new Error(
      `spend authorization: ${why}. Decision ${d.decision_id} stays captured: the payment signed under it (nonce ${signed.nonce}) can be settled until ${isoOf(signed.validBefore)}, so it counts as spent; no second payment is signed under it (paying again is a new request, with a decision of its own).`,
    );
  }
}
