/**
 * `spend-auth/client`: the service's typed HTTP client (generated from the OpenAPI document), an
 * agent's request signing (DECISIONS §19: wrap the fetch the client uses with `signingFetch` and
 * every request carries an RFC 9421 signature made with the agent's own key), and AP2 mandates
 * (DECISIONS §20): `createMandates` issues, reads, revokes and verifies them, `closeMandate` is the
 * agent's side, closing an open mandate for one payment with its P-256 key.
 */
export { createApiClient, serviceRoot, type ApiClient, type ApiClientOptions, type RequestBody, type ResponseBody, type paths } from './api-client.js';
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
