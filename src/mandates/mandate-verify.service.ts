import { createHash } from 'node:crypto';
import { decideMandate } from '../authorization/authorization.service.js';
import type { MandateRefusal, MandateRequest } from '../authorization/mandate-request.js';
import type { DbOrTrx } from '../db/database.js';
import type { Scope } from '../db/scope.js';
import { readSpend, spendFromPeriods } from '../decisions/spend.repository.js';
import type { DecisionView } from '../decisions/decision.view.js';
import { requireRole, type Caller, type Role } from '../kernel/caller.js';
import { AppError, conflict } from '../kernel/errors.js';
import { checkChain, checkFreshness, closedPayment, type ClosedPayment } from './chain.js';
import { checkConstraints } from './constraints.js';
import { CLOSED_VCT, OPEN_VCT, type MandateDeps } from './mandate-deps.js';
import { knownMandates, type MandateFacts } from './known-mandates.js';
import { countMandateUse, findMandateWithKey, findPresentation, lockMandateForPresentation, presentationInsert, type LockedMandate } from './presentations.repository.js';
import { signReceipt } from './receipt.js';
import { parsePresentation, sha256B64url, type ParsedPresentation } from './sd-jwt-parse.js';
import type { MandateVerificationView, ReceiptError, VerifyMandateInput } from './verify.schemas.js';

/** Who may verify: an admin key, or a key of the mandate's agent (checked against the credential's `jti`). */
const VERIFIERS: readonly Role[] = ['admin', 'agent'];

/** The same text whether the `jti` is unknown, another account's or mode's, or another agent's: no existence oracle. */
const NOT_OURS = 'The credential is not a mandate of this account and mode.';

type Outcome = { status: 'Success' } | { status: 'Error'; error: ReceiptError; error_description: string };

/**
 * `POST /v1/mandates/verify` (DECISIONS §20 steps 1–9). Answers the exact bytes to send (a replay
 * of a reference decided before gets its first answer's bytes, `replayed: true`).
 *
 * Steps 1–4 are checked before any transaction, with one unlocked read (the mandate, its agent key
 * and the answer given before to this presentation, if any). Steps 5–9 are `decideMandate`'s transaction, under the
 * agent's lock and then the mandate's; the answer is built, signed and stored (sealed) inside it, so
 * a replay is the first answer byte for byte. Steps 1, 2, 4 and 5 record nothing and bill nothing.
 *
 * A mandate read before (known-mandates.ts) skips the unlocked read when what never changes of it
 * passes step 2 and the presentation is fresh (step 4): its key's status and whether the closed
 * mandate was decided are then read under the locks, and any answer the unlocked read could have
 * given first (a replay, a revoked key, an agent that cannot transact) is given the long way, in
 * §20's order, after the transaction is rolled back.
 */
export async function verifyPresentation(deps: MandateDeps, caller: Caller, input: VerifyMandateInput, requestId: string): Promise<{ body: string; replayed: boolean }> {
  requireRole(caller, VERIFIERS);
  const now = deps.now?.() ?? deps.authorization.now?.() ?? new Date();
  const scope: Scope = { accountId: caller.accountId, livemode: caller.livemode };
  const answer = answerer(deps, caller, requestId, now);

  // Step 1 and the structure of step 2.
  const parsed = parsePresentation(input.presentation);
  if (!parsed.ok) return answer.unrecorded(parsed.reference ?? referenceOf(input.presentation), null, { status: 'Error', error: parsed.error, error_description: parsed.description });
  const p = parsed.value;
  const refuse = (error: ReceiptError, description: string, mandateId: string | null = null) =>
    answer.unrecorded(p.reference, mandateId, { status: 'Error', error, error_description: description });
  if (p.open.delegate.vct !== OPEN_VCT || p.closed.delegate.vct !== CLOSED_VCT) return refuse('mandates_not_supported', `Only ${OPEN_VCT} closed as ${CLOSED_VCT} is supported.`);

  // Step 2: the signatures and claims, then the mandate in the caller's scope.
  const chain = checkChain(p, deps.mandateKeys, deps.authorization.signer.issuer);
  if (chain) return refuse(chain.error, chain.description);
  const jti = p.open.jwt.payload.jti;
  if (typeof jti !== 'string') return refuse('invalid_credential', NOT_OURS);
  // What is decided once: the closed mandate's signed bytes, whatever the encoding of its signature.
  const digest = sha256B64url(p.closed.jwt.signingInput);
  const known = knownMandates(deps.authorization.db);
  const ours = (m: MandateFacts) => caller.role !== 'agent' || m.agent_id === caller.agentId;
  const step = { deps, caller, input, p, digest, answer, refuse, known };

  const facts = known.decided(digest) ? undefined : known.facts(scope, jti);
  if (facts && ours(facts) && sameKey(p.open.delegate.cnf, facts.key_jwk) && !checkFreshness(p, now, input.nonce)) {
    const decided = await decide(step, facts, true);
    if (decided) return decided;
  }

  const mandate = await findMandateWithKey(deps.authorization.db, scope, jti, digest);
  if (!mandate || !ours(mandate)) return refuse('invalid_credential', NOT_OURS);
  known.remember(scope, mandate);
  // The root is ours, so its cnf is the key it was issued for; checked again all the same.
  if (!sameKey(p.open.delegate.cnf, mandate.key_jwk)) return refuse('invalid_credential', "The open mandate's cnf is not the agent key it was issued for.");

  // Step 3: decided before → its first answer (read with the mandate).
  if (mandate.decided_answer !== null) {
    known.markDecided(digest);
    return { body: openAnswer(deps, mandate.decided_answer, digest), replayed: true };
  }

  // Step 4.
  const stale = checkFreshness(p, now, input.nonce);
  if (stale) return refuse(stale.error, stale.description, mandate.id);
  if (mandate.key_status !== 'active') return refuse('invalid_credential', 'The agent key the mandate is bound to is revoked.', mandate.id);

  return (await decide(step, mandate, false))!;
}

/** What `decide` works with: one request's presentation, its answers and the caches. */
interface Step {
  deps: MandateDeps;
  caller: Caller;
  input: VerifyMandateInput;
  p: ParsedPresentation;
  digest: string;
  answer: ReturnType<typeof answerer>;
  refuse: (error: ReceiptError, description: string, mandateId?: string | null) => { body: string; replayed: boolean };
  known: ReturnType<typeof knownMandates>;
}

/**
 * Steps 5–9: the decision's transaction. With `quick` (the unlocked read skipped), undefined when
 * the answer is one that read gives first (the long way then gives it; nothing was written).
 */
async function decide({ deps, caller, input, p, digest, answer, refuse, known }: Step, mandate: MandateFacts, quick: boolean): Promise<{ body: string; replayed: boolean } | undefined> {
  const payment = closedPayment(p);
  const request = mandateRequest(deps, caller, input, p, digest, mandate, payment, answer, quick);
  const spend = { agent_id: mandate.agent_id, amount: payment.amount, currency: payment.currency, vendor: payment.vendor, ...(mandate.category !== null ? { category: mandate.category } : {}) };
  try {
    await decideMandate(deps.authorization, caller, spend, request);
  } catch (err) {
    if (err instanceof AppError && (err.code === 'agent_frozen' || err.code === 'agent_deactivated')) return quick ? undefined : refuse('invalid_mandate', err.code, mandate.id);
    if (err instanceof TheLongWay) return undefined;
    // The same closed mandate decided by a concurrent presentation (seen under the locks, or the unique reference): its answer.
    if (err instanceof AlreadyDecided || isUniqueViolation(err)) {
      const first = await replayOf(deps, deps.authorization.db, { accountId: caller.accountId, livemode: caller.livemode }, digest);
      if (first !== undefined) {
        known.markDecided(digest);
        return { body: first, replayed: true };
      }
      // Decided, as its sealed decision record says, but its stored answer is gone: never decided again.
      if (err instanceof AlreadyDecided) throw conflict('This closed mandate was decided before, and its stored answer is gone: it is not decided again.', 'presentation');
    }
    throw err;
  }
  if (request.body === undefined) throw new Error('verifyPresentation: the decision was committed without its answer');
  known.markDecided(digest);
  return { body: request.body, replayed: false };
}

/** Under the locks of a quick decision: what the unlocked read would have answered first (a revoked key, no such mandate). */
class TheLongWay extends Error {
  constructor() {
    super('this presentation is answered before its decision');
  }
}

/** The reference decided by a concurrent presentation while this one waited for the locks. */
class AlreadyDecided extends Error {
  constructor() {
    super('this presentation was decided while it waited');
  }
}

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | undefined)?.code === '23505';

/** The sealed answer's scope: a ciphertext moved onto another presentation's row does not open. */
const sealScope = (closedDigest: string) => `mandate:${closedDigest}`;

async function replayOf(deps: MandateDeps, db: DbOrTrx, scope: Scope, closedDigest: string): Promise<string | undefined> {
  const row = await findPresentation(db, scope, closedDigest);
  return row && openAnswer(deps, row.response_sealed, closedDigest);
}

function openAnswer(deps: MandateDeps, sealed: string, closedDigest: string): string {
  const body = deps.cipher.open(sealed, sealScope(closedDigest));
  if (body === undefined) throw conflict("The answer stored for this presentation can no longer be read (the server's key changed).", 'presentation');
  return body;
}

/**
 * The port `decideMandate` takes: steps 6–7 under the mandate's row lock (with the agent's spend, in
 * the same statement), and the mandate's counters and the presentation with its answer (built and
 * signed here, so the stored bytes are the ones sent), written with the decision.
 */
function mandateRequest(
  deps: MandateDeps,
  caller: Caller,
  input: VerifyMandateInput,
  p: ParsedPresentation,
  digest: string,
  mandate: MandateFacts,
  payment: ClosedPayment,
  answer: ReturnType<typeof answerer>,
  quick: boolean,
): MandateRequest & { body: string | undefined } {
  let refusal: MandateRefusal | undefined;
  const ref = { id: mandate.id, reference: p.reference, transaction_id: payment.transaction_id };
  const request: MandateRequest & { body: string | undefined } = {
    ref,
    closedDigest: digest,
    body: undefined,
    async check(trx, agentId, now, periods) {
      const m = await lockMandateForPresentation(trx, mandate.id, digest, payment.transaction_id, agentId, periods);
      if (m?.decided) throw new AlreadyDecided();
      // Step 4's key, which a quick decision did not read before.
      if (quick && (!m || m.key_status !== 'active')) throw new TheLongWay();
      refusal = mandateRefusal(m, input, p, payment, now);
      // No mandate row (never deleted, so never in practice): the spend by its own statement.
      return { refusal, spend: m ? spendFromPeriods(periods, m.spend) : await readSpend(trx, agentId, periods) };
    },
    record(view) {
      const outcome = outcomeOf(view, refusal);
      const body = answer.body(p.reference, mandate.id, view.decision_id, outcome, view.authorization_token, new Date(view.timestamp));
      request.body = body;
      return [
        view.decision === 'approved' && countMandateUse(deps.authorization.db, mandate.id, payment.amount, new Date(view.timestamp), 'used'),
        presentationInsert({
          reference: p.reference,
          closed_digest: digest,
          account_id: caller.accountId,
          livemode: caller.livemode,
          mandate_id: mandate.id,
          transaction_id: payment.transaction_id,
          decision_id: view.decision_id,
          outcome: view.decision === 'approved' ? 'approved' : 'denied',
          response_sealed: deps.cipher.seal(body, sealScope(digest)),
          created_at: new Date(view.timestamp),
        }),
      ];
    },
  };
  return request;
}

/** Steps 6–7 against the mandate as locked: the first refusal, or undefined. */
function mandateRefusal(m: LockedMandate | undefined, input: VerifyMandateInput, p: ParsedPresentation, payment: ClosedPayment, now: Date): MandateRefusal | undefined {
  if (!m || m.status !== 'active') {
    return { reason_code: 'mandate_inactive', reason: `The mandate is ${m?.status ?? 'gone'}.`, receiptError: 'invalid_mandate' };
  }
  const mismatch = (reason: string): MandateRefusal => ({ reason_code: 'mandate_mismatch', reason, receiptError: 'invalid_mandate' });
  if (input.checkout_jwt_hash !== undefined && payment.transaction_id !== input.checkout_jwt_hash) return mismatch("The closed mandate's transaction_id is not the checkout_jwt_hash given.");
  if (m.transaction_approved) return mismatch(`transaction_id ${payment.transaction_id} was already approved under this mandate.`);
  const counters = { uses: m.uses, budget_used: Number(m.budget_used), last_used_at: m.last_used_at };
  return checkConstraints(p.open.delegate, p.closed.delegate, counters, now, input.open_checkout_hash);
}

/** The receipt's outcome of a decision: a mandate refusal names its own error; the policy's denials are invalid_mandate. */
function outcomeOf(view: DecisionView, refusal: MandateRefusal | undefined): Outcome {
  if (view.decision === 'approved') return { status: 'Success' };
  if (refusal) return { status: 'Error', error: refusal.receiptError, error_description: refusal.reason };
  return { status: 'Error', error: 'invalid_mandate', error_description: view.reason ?? view.reason_code ?? 'denied' };
}

/** Builds answers (the body as sent, with its signed receipt) for one request. */
function answerer(deps: MandateDeps, caller: Caller, requestId: string, now: Date) {
  const body = (reference: string, mandateId: string | null, decisionId: string | null, outcome: Outcome, token: string | null | undefined, at: Date): string => {
    const receipt = signReceipt(deps.mandateKeys, {
      issuer: deps.authorization.signer.issuer,
      audience: caller.accountId,
      livemode: caller.livemode,
      reference,
      paymentId: decisionId ?? requestId,
      now: at,
      outcome,
    });
    const view: MandateVerificationView = {
      object: 'mandate_verification',
      status: outcome.status,
      error: outcome.status === 'Error' ? outcome.error : null,
      error_description: outcome.status === 'Error' ? outcome.error_description : null,
      reference,
      receipt,
      mandate_id: mandateId,
      decision_id: decisionId,
      ...(outcome.status === 'Success' && token ? { authorization_token: token } : {}),
    };
    return JSON.stringify(view);
  };
  return {
    body,
    /** Steps 1, 2, 4, 5: no decision, nothing stored; the receipt's payment_id is the request's id. */
    unrecorded: (reference: string, mandateId: string | null, outcome: Outcome) => ({ body: body(reference, mandateId, null, outcome, undefined, now), replayed: false }),
  };
}

/**
 * The reference of whatever was sent, as AP2's SDK finds the closed JWT (`get_closed_mandate_jwt`):
 * the last `~~` part up to its first `~`, hashed. Used when the presentation could not be parsed.
 */
export function referenceOf(presentation: string): string {
  const closed = presentation.slice(presentation.lastIndexOf('~~') + (presentation.includes('~~') ? 2 : 0));
  const jwt = closed.split('~', 1)[0] ?? '';
  return createHash('sha256').update(jwt, 'ascii').digest('base64url');
}

/** The open mandate's cnf is exactly the stored agent key's {kty, crv, x, y}. */
function sameKey(cnf: unknown, stored: Record<string, string>): boolean {
  const jwk = (cnf as { jwk?: Record<string, unknown> } | undefined)?.jwk;
  if (!jwk || typeof jwk !== 'object') return false;
  return ['kty', 'crv', 'x', 'y'].every((k) => jwk[k] === stored[k]) && Object.keys(jwk).length === 4;
}
