/**
 * `spend-auth/x402`: this service's authorization on an official x402 client, so an agent signs a
 * payment for an HTTP resource only after its policy approves it (docs/rails/x402.md). It runs in
 * the agent's process and talks to the service over HTTP only; `@x402/core` and `@x402/fetch` are
 * the caller's own (peer) dependencies.
 */
export { withSpendAuthorization, CAPTURE_MARGIN_SECONDS, DEFAULT_MAX_VALIDITY_SECONDS, type SpendAuthorizationOptions, type SpendAuthorizationOutcome } from './spend-authorization.js';
export { requireResourceOnRequestedHost } from './requested-host.js';
export { USD_STABLECOINS, X402_CURRENCY, atomicToMinorUnits, findUsdStablecoin, AmountError, type UsdStablecoin } from './amounts.js';
export type { RequestSignerOptions } from '../../client/signing-key.js';
