import Stripe from 'stripe';
import type { AuthorizationDeps } from '../../authorization/authorization.deps.js';
import { invalid } from '../../kernel/errors.js';
import { IJsonViolation, parseIJson } from '../../kernel/i-json.js';
import { applyCardLifeEvent } from '../../rail-connections/card-life.service.js';
import { answerBody, answerRailAuthorization, DeadlinePassed, recordTimeoutAnswer, timeoutAnswer, type RailAnswer, type RailAuthorizationRequest } from '../../rail-connections/rail-answers.service.js';
import type { RailEndpoint, RailEnvironment } from '../../rail-connections/rail-endpoint.js';
import { RailConnectionGone, type EndpointConnection } from '../../rail-connections/rail-connection-cache.js';
import { stripeEventSchema, type StripeEvent } from '../../rail-connections/rail-endpoint.view.js';
import { CARD_LIFE_EVENTS, REQUEST_EVENT, toAuthorizationRequest, toCardLifeEvent } from './stripe-objects.js';

/** Stripe's own tolerance for the signature's timestamp (seconds), on both sides of now. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Stripe waits 2 s for a real-time authorization answer; this leaves the rest for the network. */
export const DEFAULT_DECISION_DEADLINE_MS = 1_500;

export type StripeIssuingDeps = RailEnvironment;

/** A request whose signature holds, with its connection. */
export interface VerifiedEvent {
  connection: EndpointConnection;
  event: StripeEvent;
}

export type RailAnswerHttp = Awaited<ReturnType<RailEndpoint['answer']>>;

const SIGNATURE = 'Stripe-Signature';
const CONNECTION_ID = /^rail_[0-9A-Za-z]{1,64}$/;
const STALE_OR_BAD = `The ${SIGNATURE} header does not verify: no signature matches, or its timestamp is outside the tolerance.`;

/**
 * The official package's check of the header over the raw bytes (any `v1`, the timestamp not older
 * than the tolerance), without the JSON parse `constructEvent` adds: the body is parsed once, here.
 */
const signatureCheck = Stripe.webhooks.signature;
if (!signatureCheck) throw new Error('the stripe package has no webhook signature helper');
const verifyHeader = signatureCheck.verifyHeader.bind(signatureCheck);

/**
 * The official package refuses only a timestamp too far in the past; one too far in the future is
 * refused here, read as the package reads it (the last `t=` of the header, an integer), so the
 * timestamp checked is the one that was signed. A signature made for later is no fresher than a
 * stale one: whoever holds it could replay it until then.
 */
export function timestampNotAhead(header: string, nowMs: number): boolean {
  let timestamp = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = Number.parseInt(value ?? '', 10);
  }
  return Number.isFinite(timestamp) && timestamp - Math.floor(nowMs / 1000) <= SIGNATURE_TOLERANCE_SECONDS;
}

/**
 * Stripe Issuing's real-time authorizations and the events of a card's later life
 * (docs/rails/stripe-issuing.md): `authenticate` checks the request before anything is read of it,
 * `answer` decides or records it.
 */
export function stripeIssuingRail(deps: StripeIssuingDeps): RailEndpoint<VerifiedEvent> {
  const deadlineMs = deps.deadlineMs ?? DEFAULT_DECISION_DEADLINE_MS;

  /**
   * The connection by id, then Stripe's signature over the raw body (any `v1` of the header, 300 s
   * tolerance on both sides of now), then the mode. Nothing is parsed before the signature holds, and nothing is
   * recorded here. Every refusal is a 400 that says no more than which check failed.
   */
  async function authenticate(connectionId: string, rawBody: Buffer, signature: string | undefined): Promise<VerifiedEvent> {
    const connection = CONNECTION_ID.test(connectionId) ? await deps.connections.get(connectionId) : undefined;
    if (!connection) throw new RailConnectionGone();
    if (!signature) throw invalid(`Missing ${SIGNATURE} header.`, SIGNATURE);
    try {
      verifyHeader(rawBody, signature, connection.signingSecret, SIGNATURE_TOLERANCE_SECONDS);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw invalid(STALE_OR_BAD, SIGNATURE);
      }
      throw invalid('The request body is not valid JSON.', 'body');
    }
    // The signature held over these bytes; they are parsed once, as I-JSON (docs/api.md, "Request
    // bodies"), so a member named twice is refused here as on every other endpoint. Its strings are
    // not judged here: a signed event reports money the card moved (a capture refused with a 400
    // would never be counted), and a request's vendor or category that cannot be stored is
    // declined, and recorded, where it is read. Text that is not JSON is refused before a timestamp
    // ahead of now, a repeated member after it: the order of the checks a client has always seen.
    let event: unknown;
    let violation: IJsonViolation | undefined;
    try {
      event = parseIJson(rawBody.toString('utf8').replace(/^\uFEFF/, ''), { strings: false });
    } catch (err) {
      if (!(err instanceof IJsonViolation)) throw invalid('The request body is not valid JSON.', 'body');
      violation = err;
    }
    if (!timestampNotAhead(signature, Date.now())) throw invalid(STALE_OR_BAD, SIGNATURE);
    if (violation) throw invalid(violation.message, violation.path);
    const parsed = stripeEventSchema.safeParse(event);
    if (!parsed.success) throw invalid('The body is not a Stripe event.', 'body');
    if (parsed.data.livemode !== connection.livemode) {
      throw invalid(`The event's livemode (${parsed.data.livemode}) does not match the connection's mode.`, 'livemode');
    }
    return { connection, event: parsed.data };
  }

  /**
   * A real-time authorization request, answered by `deadline` whatever the database does: with the
   * decision when it is recorded in time, else (or when it fails) with the connection's
   * `on_timeout`, which is then recorded.
   */
  async function answerRequest(connection: EndpointConnection, request: RailAuthorizationRequest, deadline: number): Promise<RailAnswer> {
    const where = { connection_id: connection.id, authorization_id: request.authorizationId };
    let timer: NodeJS.Timeout | undefined;
    const deadlineReached = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()))));
    const decided = answerRailAuthorization(deps.authz, connection, request, deadline).catch((err: unknown) => {
      // Rolled back for being too late: the timeout answer is (about to be) given.
      if (err instanceof DeadlinePassed) return deadlineReached;
      if (err instanceof RailConnectionGone) return 'gone' as const;
      deps.log?.('error', 'a rail decision failed; the rail gets the on_timeout answer', { err, ...where });
      return 'failed' as const;
    });
    const first = await Promise.race([decided, deadlineReached]).finally(() => clearTimeout(timer));
    if (typeof first === 'object') return first;
    // Deleted since it was cached: found by the decision's first query, or (when the request waited
    // out its time before making one) heard of meanwhile. Refused, and nothing recorded.
    if (first === 'gone' || deps.connections.isDropped(connection)) throw gone(connection);
    recordTimeoutAnswer(deps.authz, connection, request).then(
      (stored) => {
        if (!stored) deps.log?.('warn', 'a decision was recorded although the rail got the timeout answer; its later events reconcile it', where);
      },
      (err: unknown) => deps.log?.('error', 'the timeout answer could not be recorded', { err, ...where }),
    );
    return { ...timeoutAnswer(connection), replayed: false };
  }

  /** The answer to a verified event: HTTP 200 with `Stripe-Version`; a bad shape or a failure is thrown. */
  async function answer({ connection, event }: VerifiedEvent, arrivedAt: number): Promise<RailAnswerHttp> {
    const headers = { 'Stripe-Version': connection.stripeVersion };
    if (event.type === REQUEST_EVENT) {
      const request = toAuthorizationRequest(event);
      if (!request) throw invalid('The event does not hold an issuing authorization this rail can read.', 'data.object');
      const a = await answerRequest(connection, request, deadlineOf(arrivedAt));
      deps.onAnswer?.(a.replayed ? 'replayed' : a.outcome === 'timeout' ? 'timeout' : a.outcome === 'matched' ? 'matched' : a.approved ? 'approved' : 'declined');
      return { headers, body: answerBody(a) };
    }
    if (CARD_LIFE_EVENTS.has(event.type)) {
      const life = toCardLifeEvent(event);
      if (!life) throw invalid(`The event does not hold the object a ${event.type} event carries.`, 'data.object');
      await applyCardLifeEvent(deps.authz, connection, life).catch((err: unknown) => {
        throw err instanceof RailConnectionGone ? gone(connection) : err;
      });
    }
    return { headers, body: { received: true } };
  }

  /** The refusal of a connection deleted since this process cached it, which it forgets now. */
  const gone = (connection: EndpointConnection) => {
    deps.connections.drop(connection.id);
    return new RailConnectionGone();
  };

  /** When a request that arrived at `arrivedAt` must be answered (epoch ms). */
  const deadlineOf = (arrivedAt: number) => arrivedAt + deadlineMs;

  return { signatureHeader: SIGNATURE, authenticate, answer, deadlineOf };
}

export type StripeIssuingRail = ReturnType<typeof stripeIssuingRail>;
