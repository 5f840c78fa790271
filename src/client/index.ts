/**
 * `spend-auth/client`: the service's typed HTTP client (generated from the OpenAPI document) and,
 * on top of it, `SpendAuth`, what an agent's developer calls (docs/clients.md): authorize with
 * retries, idempotency keys and the wait for a held decision, capture and void, offline checks of
 * `gca_` tokens and of webhook signatures, and the `authorize_spend` tool for agent frameworks.
 * Also an agent's request signing (DECISIONS §19: wrap the fetch the client uses with
 * `signingFetch` and every request carries an RFC 9421 signature made with the agent's own key),
 * and AP2 mandates (DECISIONS §20): `createMandates` issues, reads, revokes and verifies them,
 * `closeMandate` is the agent's side, closing an open mandate for one payment with its P-256 key.
 */
export { API_VERSION } from '../kernel/api-version.js';
export {
  SpendAuth,
  MAX_POLL_SECONDS,
  type ApiKeySelf,
  type AuthorizeRequest,
  type CaptureParams,
  type Decision,
  type IdempotentOptions,
  type SpendAuthOptions,
  type WaitOptions,
} from './spend-auth.js';
export { SpendAuthError, RateLimitError, TokenError, WebhookVerificationError, type ApiErrorCode, type SpendAuthErrorCode, type SpendAuthErrorFields } from './spend-auth-error.js';
export { DEFAULT_MAX_RETRIES, MAX_RETRY_AFTER_SECONDS, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from './retry.js';
export { createTokenVerifier, TOKEN_PREFIX, JWKS_REFETCH_INTERVAL_MS, type TokenClaims, type TokenVerifier, type VerifyTokenOptions } from './token-verifier.js';
export {
  verifyWebhook,
  seenEventIds,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type ApprovalCompletedData,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhook-verifier.js';
export { authorizeSpendTool, AUTHORIZE_SPEND_PARAMETERS, DEFAULT_TOOL_WAIT_SECONDS, AUTHORIZE_SPEND_TOOL_NAME, type AuthorizeSpendTool, type AuthorizeSpendToolOptions } from './agent-tool.js';
export { createApiClient, serviceRoot, type ApiClient, type ApiClientOptions, type RequestBody, type ResponseBody, type paths } from './api-client.js';
export type { components, webhooks } from './openapi-types.js';
export { createApiCall, API_REQUEST_TIMEOUT_MS, type ApiCall, type ApiFailure, type ApiResult, type Fetch } from './api-call.js';
export {
  createRequestSigner,
  contentDigest,
  DEFAULT_SIGNATURE_LIFETIME_SECONDS,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  SIGNATURE_LABEL,
  WEB_BOT_AUTH_TAG,
  type RequestSigner,
  type RequestSignerOptions,
  type SignableRequest,
} from './request-signer.js';
export { signingFetch } from './signing-fetch.js';
export type { PublicSigningJwk } from './signing-key.js';
export {
  createMandates,
  type CreateMandateBody,
  type Mandate,
  type MandateList,
  type MandateListQuery,
  type MandatesClient,
  type MandatesClientOptions,
  type MandateVerification,
  type MandateVerifyResult,
  type VerifyMandateBody,
} from './mandates.js';
export { closeMandate, type CloseMandateOptions, type ClosedPayee } from './mandate-close.js';
