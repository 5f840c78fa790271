import type { components, webhooks } from './openapi-types.js';
import { SpendAuthError, WebhookVerificationError } from './spend-auth-error.js';

/** A webhook delivery's body, one member per event type (the OpenAPI document's `webhooks`). */
export type WebhookEvent = {
  [E in keyof webhooks]: NonNullable<webhooks[E]['post']> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
}[keyof webhooks];
export type WebhookEventType = WebhookEvent['event'];
/** The `data` of an `approval.completed` event, for handlers that narrow on `event.event`. */
export type ApprovalCompletedData = components['schemas']['ApprovalCompletedData'];

export const SIGNATURE_HEADER = 'x-service-signature';
/** Sent during a secret rotation's grace period: the same body signed with the previous secret. */
export const PREVIOUS_SIGNATURE_HEADER = 'x-service-signature-previous';

/**
 * The default tolerance on the event's `timestamp`. A delivery's body is the same bytes on every
 * attempt and the service retries a failed one for up to 3 days (an hour added for the outbox and
 * clocks): a tighter default would refuse the service's own retries. Dedupe on the event `id`.
 */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 3 * 86_400 + 3_600;

/** Request headers as Node (`req.headers`), Express or fetch give them, or the signature header's value. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined> | string;

export interface VerifyWebhookOptions {
  /** Seconds the event's `timestamp` may be from now, either way, 0 or more; `Infinity` checks the signature only. */
  tolerance?: number;
  /** Now, for tests; default the clock. */
  now?: Date;
  /**
   * A replay guard: told each verified event's id, it answers whether that id was seen before (and
   * remembers it). A genuine delivery replayed within the tolerance then fails `replayed`. Keep
   * the ids at least as long as the tolerance: `seenEventIds()` does, in memory, for one process;
   * a receiver with several processes passes a shared store (an insert into a unique column).
   */
  seen?: (eventId: string) => boolean | Promise<boolean>;
}

/**
 * An in-memory replay guard for `verifyWebhook`'s `seen`: ids are kept for `keepSeconds` (the
 * tolerance, by default), at most `max` of them (the oldest go first). One process only.
 */
export function seenEventIds(opts: { keepSeconds?: number; max?: number; now?: () => number } = {}): (eventId: string) => boolean {
  const keepMs = (opts.keepSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS) * 1000;
  const max = opts.max ?? 100_000;
  const now = opts.now ?? Date.now;
  const ids = new Map<string, number>();
  return (eventId) => {
    const t = now();
    for (const [id, at] of ids) {
      if (t - at <= keepMs && ids.size < max) break;
      ids.delete(id);
    }
    if (ids.has(eventId)) return true;
    ids.set(eventId, t);
    return false;
  };
}

const encoder = new TextEncoder();

function headerValues(headers: WebhookHeaders): string[] {
  if (typeof headers === 'string') return [headers];
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found[0] : found;
  };
  return [read(SIGNATURE_HEADER), read(PREVIOUS_SIGNATURE_HEADER)].filter((v): v is string => typeof v === 'string');
}

/** `sha256=<64 lower-case hex>` as bytes; undefined for anything else. */
function signatureBytes(value: string): Uint8Array | undefined {
  const hex = /^sha256=([0-9a-f]{64})$/.exec(value.trim())?.[1];
  if (!hex) return undefined;
  return Uint8Array.from(hex.match(/../g)!, (byte) => Number.parseInt(byte, 16));
}

/**
 * Verifies a webhook delivery as SPEC §6 and docs/api.md ("Verifying a delivery") describe it:
 * `X-Service-Signature: sha256=<hex>` is HMAC-SHA256 of the raw body with the endpoint's secret
 * (also `X-Service-Signature-Previous` during a rotation), checked in constant time (WebCrypto's
 * verify), then the event's `timestamp` against `tolerance`. `payload` must be the raw body, bytes
 * or their UTF-8 string: a re-serialized JSON does not verify. `secret` may be several (a receiver
 * switching secrets). Returns the parsed event; throws WebhookVerificationError.
 */
export async function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], opts: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const tolerance = opts.tolerance ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  // NaN would compare false and pass any timestamp: a caller's mistake is refused, never a silent "signature only".
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) {
    throw new SpendAuthError('tolerance must be a number of seconds, 0 or more (Infinity: the signature only).', { status: null, code: 'invalid_request', param: 'tolerance' });
  }
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const signatures = headerValues(headers).map(signatureBytes).filter((s): s is Uint8Array => s !== undefined);
  if (signatures.length === 0) throw new WebhookVerificationError('No X-Service-Signature of the form sha256=<hex> came with the delivery.', 'signature_invalid', 'X-Service-Signature');
  let verified = false;
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const key = await crypto.subtle.importKey('raw', encoder.encode(s), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const signature of signatures) {
      if (await crypto.subtle.verify('HMAC', key, signature as Uint8Array<ArrayBuffer>, body as Uint8Array<ArrayBuffer>)) verified = true;
    }
  }
  if (!verified) throw new WebhookVerificationError('The webhook signature does not match the body with this secret.', 'signature_invalid', 'X-Service-Signature');

  let event: WebhookEvent;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON.', 'malformed');
  }
  if (typeof event !== 'object' || event === null || typeof event.id !== 'string' || typeof event.event !== 'string' || typeof event.timestamp !== 'string') {
    throw new WebhookVerificationError('The signed body is not an event ({id, event, data, timestamp}).', 'malformed');
  }
  const at = Date.parse(event.timestamp);
  const now = (opts.now ?? new Date()).getTime();
  if (!Number.isFinite(at)) throw new WebhookVerificationError('The event timestamp is not a date.', 'malformed', 'timestamp');
  if (Math.abs(now - at) > tolerance * 1000) {
    throw new WebhookVerificationError(`The event timestamp ${event.timestamp} is more than ${tolerance} s from now.`, 'timestamp_out_of_tolerance', 'timestamp');
  }
  // Last: only a delivery that is genuine and in time is remembered.
  if (opts.seen && (await opts.seen(event.id))) throw new WebhookVerificationError(`Event ${event.id} was delivered before: a replay (or a retry already handled).`, 'replayed', 'id');
  return event;
}
