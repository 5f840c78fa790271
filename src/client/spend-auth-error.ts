import type { components } from './openapi-types.js';

/** The API's error codes (the OpenAPI document's `Error` envelope). */
export type ApiErrorCode = components['schemas']['Error']['error']['code'];
/**
 * What a SpendAuthError's `code` can be: the API's codes, or what went wrong on the client's side
 * (`network_error` and `timeout` after the retries; `unexpected_response` for an answer that is
 * not the document's). Open-ended, so a code added within v1 still type-checks.
 */
export type SpendAuthErrorCode = ApiErrorCode | 'network_error' | 'timeout' | 'unexpected_response' | (string & {});

export interface SpendAuthErrorFields {
  /** The HTTP status; null when no answer came (network failure, timeout) or the check is local. */
  status: number | null;
  code: SpendAuthErrorCode;
  /** The offending parameter, dotted for nested fields, or null. */
  param?: string | null;
  /** The service's request id (`request_id` of the envelope, `X-Request-Id`): quote it to the operator. */
  requestId?: string | null;
  /** The Idempotency-Key every attempt of the failed call sent (POSTs): call again with it to get the decision, if one was made. */
  idempotencyKey?: string | null;
  cause?: unknown;
}

/**
 * Every failure of the client: an error answer of the API (its envelope's `code`, `param`,
 * `request_id`), or a network failure once the retries are spent (`status` null). A denied
 * decision is no error: it is a returned decision.
 */
export class SpendAuthError extends Error {
  override name = 'SpendAuthError';
  readonly status: number | null;
  readonly code: SpendAuthErrorCode;
  readonly param: string | null;
  readonly requestId: string | null;
  /** The call's Idempotency-Key (POSTs), or null: passing it again reaches the same decision, never a second one. */
  readonly idempotencyKey: string | null;

  constructor(message: string, fields: SpendAuthErrorFields) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.param = fields.param ?? null;
    this.requestId = fields.requestId ?? null;
    this.idempotencyKey = fields.idempotencyKey ?? null;
  }
}

/** HTTP 429 `rate_limited` once the retries are spent (or when the wait asked for is too long to honour). */
export class RateLimitError extends SpendAuthError {
  override name = 'RateLimitError';
  /** Seconds the service asked to wait (`Retry-After`, fractions kept), when it said. */
  readonly retryAfter: number | null;

  constructor(message: string, fields: SpendAuthErrorFields & { retryAfter: number | null }) {
    super(message, fields);
    this.retryAfter = fields.retryAfter;
  }
}

/**
 * An authorization token that does not verify offline: `code` is the service's own vocabulary of
 * `POST /v1/authorization-tokens/verify` (`malformed`, `unknown_key`, `bad_signature`, `expired`,
 * `wrong_audience` for another account or mode, with `param` `aud` or `livemode`), or
 * `jwks_unavailable` when the keys could not be fetched.
 */
export class TokenError extends SpendAuthError {
  override name = 'TokenError';
  constructor(message: string, code: 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'wrong_audience' | 'wrong_issuer' | 'jwks_unavailable', param: string | null = null, cause?: unknown) {
    super(message, { status: null, code, param, cause });
  }
}

/**
 * A webhook delivery that does not verify: `signature_invalid` (missing, malformed or not matching
 * any secret; `param` the header), `timestamp_out_of_tolerance` (`param` `timestamp`), or
 * `malformed` (the signed body is not an event).
 */
export class WebhookVerificationError extends SpendAuthError {
  override name = 'WebhookVerificationError';
  constructor(message: string, code: 'signature_invalid' | 'timestamp_out_of_tolerance' | 'malformed' | 'replayed', param: string | null = null) {
    super(message, { status: null, code, param });
  }
}
