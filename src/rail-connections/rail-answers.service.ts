import type { Caller } from '../kernel/caller.js';
import type { DbOrTrx, RailAnswerOutcome } from '../db/database.js';
import { AppError } from '../kernel/errors.js';
import { isIJsonText } from '../kernel/i-json.js';
import { isStorableText } from '../kernel/storable-text.js';
import { authorizeSchema } from '../authorization/authorize.schemas.js';
import { decide } from '../authorization/authorization.service.js';
import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import type { RailOutcome } from '../authorization/rail-request.js';
import { findEarlierAnswers, findRailAnswer, firstDecisionOf, insertRailAnswer, insertRailAnswerIfAbsent, type NewRailAnswer, type RailAnswerRow } from './rail-answers.repository.js';
import { RailConnectionGone, type EndpointConnection } from './rail-connection-cache.js';
import { TimeoutAnswerLog } from './timeout-answers.js';

/** A card authorization request, as the rail's adapter translated it (docs/rails/stripe-issuing.md). */
export interface RailAuthorizationRequest {
  eventId: string;
  authorizationId: string;
  /** From the card's metadata, else the cardholder's; null when neither names one. */
  agentId: string | null;
  amount: number;
  currency: string;
  vendor: string;
  category: string | null;
  metadata: Record<string, string>;
}

/** The answer to give the rail, and how it was reached. */
export interface RailAnswer {
  approved: boolean;
  decisionId: string | null;
  /** Only when declined. */
  reasonCode: string | null;
  outcome: RailAnswerOutcome;
  /** Given earlier to the same event, and given again. */
  replayed: boolean;
}

/** The decision was ready (or still to start) after its deadline: it was rolled back or never made; the rail got the timeout answer. */
export class DeadlinePassed extends Error {
  constructor() {
    super('the rail was answered before the decision could be recorded');
  }
}

/**
 * Under this much time left, a decision is not committed: the timeout answer may already be on
 * its way, and the books must say what the rail was told.
 */
export const COMMIT_MARGIN_MS = 50;

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | undefined)?.code === '23505';

const fromRow = (row: RailAnswerRow, replayed: boolean): RailAnswer => ({
  approved: row.approved,
  decisionId: row.decision_id,
  reasonCode: row.reason_code,
  outcome: row.outcome,
  replayed,
});

/** The JSON body the rail receives for an answer (stored with it, for the record). */
export const answerBody = (a: Pick<RailAnswer, 'approved' | 'decisionId' | 'reasonCode'>) => ({
  approved: a.approved,
  metadata: { ...(a.decisionId ? { decision_id: a.decisionId } : {}), ...(!a.approved && a.reasonCode ? { reason_code: a.reasonCode } : {}) },
});

/** Whether a request is the first of its card authorization, or one for an increase of it. */
type RequestKind = { increment: boolean };

function answerRow(connection: EndpointConnection, req: RailAuthorizationRequest, a: Omit<RailAnswer, 'replayed'>, agentId: string | null, now: Date, kind: RequestKind): NewRailAnswer {
  // What the answer approved for the card authorization: the request's amount, also when it matched a larger approval.
  const approvedAmount = a.approved && a.decisionId ? req.amount : 0;
  return {
    connection_id: connection.id,
    authorization_id: req.authorizationId,
    account_id: connection.accountId,
    livemode: connection.livemode,
    request_event_id: req.eventId,
    agent_id: agentId,
    decision_id: a.decisionId,
    outcome: a.outcome,
    approved: a.approved,
    reason_code: a.approved ? null : a.reasonCode,
    answer: answerBody(a),
    // What the authorization counts through its decision: the captured amount, when approved by one.
    counted_amount: approvedAmount,
    approved_amount: approvedAmount,
    increment: kind.increment,
    created_at: now,
    updated_at: now,
  };
}

/** The connection acting for its account and mode: rail decisions are recorded as the system on its behalf. */
const callerFor = (connection: EndpointConnection): Caller => ({
  accountId: connection.accountId,
  livemode: connection.livemode,
  keyId: connection.id,
  role: 'admin',
  agentId: null,
  plan: connection.plan,
  rateLimit: connection.rateLimit,
});

function outcomeAnswer(outcome: RailOutcome): Omit<RailAnswer, 'replayed'> {
  const d = outcome.decision;
  const approved = d.decision === 'approved';
  return { approved, decisionId: d.decision_id, reasonCode: approved ? null : d.reason_code, outcome: outcome.kind };
}

/** Refusals of the decision path that are a declined card, not a failure. */
const DECLINES: Partial<Record<AppError['code'], string>> = { not_found: 'unknown_agent', agent_frozen: 'agent_frozen', agent_deactivated: 'agent_deactivated' };

/**
 * Answers a card authorization request: a repeat of the event gets the first answer back; a new
 * event for an authorization answered before is a request for its increase (Stripe's incremental
 * authorizations), decided like any swipe; otherwise it is decided on the path of
 * `POST /v1/authorize` (rule 1 first), and the answer is recorded in the decision's transaction.
 * A decision that would commit after `deadline` (epoch ms) is rolled back and `DeadlinePassed`
 * thrown; a connection deleted meanwhile throws RailConnectionGone before anything is recorded.
 */
export async function answerRailAuthorization(
  deps: AuthorizationDeps,
  connection: EndpointConnection,
  req: RailAuthorizationRequest,
  deadline: number,
  lostFirst = false,
): Promise<RailAnswer> {
  const checkInTime = () => {
    if (Date.now() > deadline - COMMIT_MARGIN_MS) throw new DeadlinePassed();
  };
  // A request that waited out its time (for the connection, the rate limit) costs no more queries.
  checkInTime();
  const db = deps.db;
  const { live, toEvent: earlier, first } = await findEarlierAnswers(db, connection.id, { authorizationId: req.authorizationId, eventId: req.eventId });
  // Deleted after the connection was cached here, before this process heard of it.
  if (!live) throw new RailConnectionGone();
  if (earlier) return fromRow(earlier, true);
  const kind: RequestKind = { increment: first !== undefined };
  const now = () => deps.now?.() ?? new Date();
  // Another request of this authorization recorded its answer first: this one is an increase after all.
  const afterConflict = async (): Promise<RailAnswer> => {
    const stored = await findRailAnswer(db, connection.id, req.eventId);
    if (stored) return fromRow(stored, true);
    if (kind.increment || lostFirst) throw new Error(`no answer recorded for event ${req.eventId} after a conflicting insert`);
    return answerRailAuthorization(deps, connection, req, deadline, true);
  };

  const declineWithout = async (reasonCode: string, agentId = req.agentId): Promise<RailAnswer> => {
    const answer = { approved: false, decisionId: null, reasonCode, outcome: 'declined' as const };
    if (await insertRailAnswerIfAbsent(db, answerRow(connection, req, answer, agentId, now(), kind))) return { ...answer, replayed: false };
    return afterConflict();
  };

  // Text PostgreSQL cannot hold, or that is not I-JSON (a noncharacter: a denylisted name with one
  // appended is another string), is declined before it reaches a query, as the API refuses it.
  if (![req.agentId ?? '', req.vendor, req.category ?? '', ...Object.values(req.metadata)].every((t) => isStorableText(t) && isIJsonText(t))) {
    return declineWithout('invalid_request', null);
  }
  if (!req.agentId) return declineWithout('unknown_agent');
  const parsed = authorizeSchema.safeParse({ agent_id: req.agentId, amount: req.amount, currency: req.currency, vendor: req.vendor, category: req.category ?? undefined, metadata: req.metadata });
  if (!parsed.success) return declineWithout('invalid_request');

  const ref = { type: 'stripe_issuing' as const, connection_id: connection.id, authorization_id: req.authorizationId };
  const incrementOf = kind.increment ? (first?.decision_id ?? (await firstDecisionOf(db, connection.id, req.authorizationId))) : null;
  const rowOf = (outcome: RailOutcome) => answerRow(connection, req, outcomeAnswer(outcome), req.agentId, now(), kind);
  const record = async (trx: DbOrTrx, outcome: RailOutcome) => {
    checkInTime();
    await insertRailAnswer(trx, rowOf(outcome));
  };
  try {
    const outcome = await decide(deps, callerFor(connection), parsed.data, { rail: { ref, record, checkInTime, incrementOf, answerRow: rowOf } });
    return { ...outcomeAnswer(outcome), replayed: false };
  } catch (err) {
    if (err instanceof AppError && DECLINES[err.code]) return declineWithout(DECLINES[err.code]!);
    // A concurrent request recorded its answer first: this decision was rolled back.
    if (isUniqueViolation(err)) return afterConflict();
    throw err;
  }
}

/** Each database's log of timeout answers (one per process and database). */
const timeoutLogs = new WeakMap<object, TimeoutAnswerLog>();

/**
 * Records that the rail was given the connection's `on_timeout` answer, unless a decision was
 * recorded first (then that one stands in the books; the rail's later events reconcile it).
 * Written with the other timeout answers of the moment, and retried until written
 * (timeout-answers.ts). Resolves to whether the timeout answer is the one on record.
 */
export function recordTimeoutAnswer(deps: Pick<AuthorizationDeps, 'db' | 'now'>, connection: EndpointConnection, req: RailAuthorizationRequest): Promise<boolean> {
  let log = timeoutLogs.get(deps.db);
  if (!log) {
    log = new TimeoutAnswerLog(deps.db);
    timeoutLogs.set(deps.db, log);
  }
  // `increment` is decided by the statement that writes the row.
  return log.record(answerRow(connection, req, timeoutAnswer(connection), req.agentId, deps.now?.() ?? new Date(), { increment: false }));
}

/** The connection's `on_timeout` answer: what the rail is told and what is recorded, from one place. */
export function timeoutAnswer(connection: Pick<EndpointConnection, 'onTimeout'>) {
  const approved = connection.onTimeout === 'approve';
  return { approved, decisionId: null, reasonCode: approved ? null : 'timeout', outcome: 'timeout' as const };
}
