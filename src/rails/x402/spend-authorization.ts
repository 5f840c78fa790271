import type { PaymentCreationContext, PaymentCreationFailureContext, PaymentResponseContext, x402Client } from '@x402/core/client';
import type { PaymentRequirements } from '@x402/core/types';
import { formatMoney } from '../../kernel/money.js';
import { AmountError, atomicToMinorUnits, findUsdStablecoin, X402_CURRENCY } from './amounts.js';
import { AttemptStore, mismatch, type Asked, type Attempt } from './attempts.js';
import { createDecisionClient, MAX_POLL_SECONDS, type Answer, type Decision, type DecisionClient } from './decision-client.js';

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
  /** The fetch used to call the service (not the paid resource); default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Told of each outcome (decided, refused, captured, …), e.g. for a log. Must not throw. */
  onOutcome?: (outcome: SpendAuthorizationOutcome) => void;
}

/** What happened to one payment, as `onOutcome` reports it. */
export type SpendAuthorizationOutcome =
  | { type: 'approved'; resource: string; decisionId: string; amount: number; currency: string; resumed: boolean }
  | { type: 'refused'; resource: string; reason: string; decisionId?: string }
  | { type: 'captured'; resource: string; decisionId: string; amount: number; transaction: string; network: string }
  | { type: 'capture_failed'; resource: string; decisionId: string; reason: string }
  | { type: 'settlement_failed'; resource: string; decisionId: string; voided: boolean; reason: string }
  | { type: 'payment_not_accepted'; resource: string; decisionId: string };

type Abort = { abort: true; reason: string };

/** An approval must stay capturable this long after the payment is signed (its settlement takes seconds). */
export const CAPTURE_MARGIN_SECONDS = 30;
const CAPTURE_TRIES = 3;
const CAPTURE_RETRY_MS = [250, 1_000];
/** A metadata value holds at most 500 characters (as on authorize). */
const METADATA_TEXT_MAX = 500;

/** At most 500 UTF-16 units, never ending in half a surrogate pair (the service refuses those). */
const clip = (text: string) => text.slice(0, METADATA_TEXT_MAX).replace(/[\ud800-\udbff]$/, '');
/** A message without its final period, to continue it in a sentence of ours. */
const sentence = (text: string) => text.replace(/\.+$/, '');
const cents = (minor: number) => formatMoney(minor, X402_CURRENCY);
/** Answers worth trying again with the same key: nothing was decided, or we cannot know. */
const transient = (a: Extract<Answer<unknown>, { ok: false }>) =>
  a.code === 'network_error' || a.code === 'unexpected_response' || a.code === 'conflict' || a.code === 'rate_limited' || (a.status ?? 0) >= 500;

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
}

/** The paid resource's URL, when it is an http(s) URL. */
function resourceUrl(ctx: PaymentCreationContext): URL | undefined {
  const raw = ctx.paymentRequired.resource?.url;
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
 * `@x402/core`, used through `@x402/fetch`) and returns the same client. Before any payment is
 * signed, `POST /v1/authorize` decides it (amount converted to USD cents, rounded up; vendor = the
 * resource's host; category `x402`); approved → the payment proceeds and, once the paid response
 * arrives, the decision is captured in full with the settlement's transaction; denied, held past
 * `maxWaitSeconds`, an unknown asset, a requirement beyond what was approved, or the service out
 * of reach → the payment is aborted and nothing is signed (the wrapped fetch throws with the
 * reason). docs/rails/x402.md describes every outcome.
 */
export function withSpendAuthorization<C extends x402Client>(client: C, options: SpendAuthorizationOptions): C {
  checkOptions(options);
  const service = createDecisionClient({ baseUrl: options.baseUrl, apiKey: options.apiKey }, options.fetch ?? ((req) => fetch(req)));
  const rail = new SpendAuthorizationHooks(service, options);
  client.onBeforePaymentCreation((ctx) => rail.beforePayment(ctx));
  client.onPaymentCreationFailure((ctx) => rail.creationFailed(ctx));
  client.onPaymentResponse((ctx) => rail.afterPayment(ctx));
  return client;
}

class SpendAuthorizationHooks {
  private readonly attempts: AttemptStore;
  /** The purchase each selected requirement is being paid under, from approval to its paid response. */
  private readonly inFlight = new WeakMap<PaymentRequirements, Attempt>();
  private readonly maxWaitSeconds: number;

  constructor(
    private readonly service: DecisionClient,
    private readonly options: SpendAuthorizationOptions,
  ) {
    this.attempts = new AttemptStore(options.agentId);
    this.maxWaitSeconds = options.maxWaitSeconds ?? 0;
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

  async beforePayment(ctx: PaymentCreationContext): Promise<void | Abort> {
    const url = resourceUrl(ctx);
    const resource = url?.href ?? String(ctx.paymentRequired.resource?.url ?? '');
    if (ctx.paymentRequired.x402Version !== 2) return this.refuse(resource, 'refused: only x402 version 2 payments are authorized. No payment was made.');
    if (!url) return this.refuse(resource, 'refused: the payment names no http(s) resource URL. No payment was made.');
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
    const { attempt, resumed } = this.attempts.take(resource, asked);
    const differs = mismatch(attempt, asked);
    // The purchase under way ends here: the next call asks for a decision of its own.
    if (differs) return this.refuse(resource, `refused: ${differs}. No payment was made.`, attempt.decision?.decision_id);

    const decided = await this.decide(attempt, url);
    if ('abort' in decided) return decided;
    const d = decided.decision;
    const problem = this.approvalProblem(d, asked);
    if (problem) return this.refuse(resource, `refused: ${problem}. No payment was made.`, d.decision_id);
    this.inFlight.set(req, attempt);
    this.report({ type: 'approved', resource, decisionId: d.decision_id, amount: d.amount, currency: d.currency, resumed });
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

  /** The attempt's decision, once it is no longer pending (or an abort, with the attempt parked when it may still be decided). */
  private async decide(attempt: Attempt, url: URL): Promise<{ decision: Decision } | Abort> {
    const resource = attempt.resource;
    const unreachable = (a: Extract<Answer<Decision>, { ok: false }>) => {
      if (transient(a)) this.attempts.park(attempt);
      return this.refuse(resource, `could not be decided (${a.code}: ${sentence(a.message)}). No payment was made.`, attempt.decision?.decision_id);
    };
    let answer = attempt.decision ? await this.service.get(attempt.decision.decision_id, 0) : await this.service.authorize(this.authorizeBody(attempt, url), attempt.idempotencyKey);
    if (!answer.ok) return unreachable(answer);
    // A replay is the decision as first answered: read its state now (a hold may have been resolved since).
    if (answer.replayed) answer = await this.service.get(answer.body.decision_id, 0);
    if (!answer.ok) return unreachable(answer);
    let d = (attempt.decision = answer.body);

    const deadline = Date.now() + this.maxWaitSeconds * 1000;
    while (d.status === 'pending') {
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (left <= 0) {
        this.attempts.park(attempt);
        const waited = this.maxWaitSeconds > 0 ? ` after waiting ${this.maxWaitSeconds} s` : '';
        return this.refuse(
          resource,
          `held for review (${d.reason_code ?? 'approval_required'}): decision ${d.decision_id} awaits a reviewer${waited}; retry once it is approved. No payment was made.`,
          d.decision_id,
        );
      }
      const polled = await this.service.get(d.decision_id, Math.min(left, MAX_POLL_SECONDS));
      if (!polled.ok) return unreachable(polled);
      d = attempt.decision = polled.body;
    }
    if (d.decision !== 'approved') {
      const why = d.status === 'expired' ? 'the review was not answered in time' : (d.reason ?? 'the policy does not allow it');
      return this.refuse(resource, `denied (${d.reason_code ?? 'policy_denied'}): ${sentence(why)} (decision ${d.decision_id}). No payment was made.`, d.decision_id);
    }
    return { decision: d };
  }

  private authorizeBody(attempt: Attempt, url: URL) {
    const { asked } = attempt;
    return {
      agent_id: this.options.agentId,
      amount: asked.minor,
      currency: X402_CURRENCY,
      vendor: url.host,
      category: 'x402',
      metadata: { network: asked.network, asset: asked.asset, pay_to: asked.payTo, resource: clip(attempt.resource), amount_atomic: asked.amount },
    };
  }

  /** The scheme could not build the payment (nothing was signed or sent): the approval stays for a retry. */
  async creationFailed(ctx: PaymentCreationFailureContext): Promise<void> {
    const attempt = this.inFlight.get(ctx.selectedRequirements);
    if (!attempt) return;
    this.inFlight.delete(ctx.selectedRequirements);
    this.attempts.park(attempt);
  }

  /** After the paid request: capture on a settlement, release on a failed one, keep the approval when the server took no payment. */
  async afterPayment(ctx: PaymentResponseContext): Promise<void> {
    const attempt = this.inFlight.get(ctx.requirements);
    if (!attempt?.decision) return;
    this.inFlight.delete(ctx.requirements);
    const { resource } = attempt;
    const d = attempt.decision;
    const settled = ctx.settleResponse;
    if (settled?.success) {
      const metadata: Record<string, string> = { transaction: clip(settled.transaction), network: clip(settled.network) };
      if (settled.payer) metadata.payer = clip(settled.payer);
      if (settled.amount) metadata.amount_atomic = clip(settled.amount);
      let res = await this.service.capture(d.decision_id, metadata);
      for (let i = 1; i < CAPTURE_TRIES && !res.ok && transient(res); i++) {
        await new Promise((r) => setTimeout(r, CAPTURE_RETRY_MS[i - 1]));
        res = await this.service.capture(d.decision_id, metadata);
      }
      if (res.ok) this.report({ type: 'captured', resource, decisionId: d.decision_id, amount: res.body.capture?.captured_amount ?? d.amount, transaction: settled.transaction, network: settled.network });
      else this.report({ type: 'capture_failed', resource, decisionId: d.decision_id, reason: `${res.code}: ${res.message}` });
      return;
    }
    if (settled) {
      // Agent keys may not void (it frees budget): their approval is then released at the end of its capture window.
      const voided = await this.service.void(d.decision_id);
      const reason = settled.errorReason ?? settled.errorMessage ?? 'settlement failed';
      this.report({ type: 'settlement_failed', resource, decisionId: d.decision_id, voided: voided.ok, reason });
      return;
    }
    if (ctx.paymentRequired) {
      // The server answered 402 again: it took no payment. A retry may pay under this approval, never beyond it.
      this.attempts.park(attempt);
      this.report({ type: 'payment_not_accepted', resource, decisionId: d.decision_id });
    }
    // Otherwise the outcome is unknown: the approval is not reused, and stays uncaptured until its capture window ends.
  }
}
