/**
 * An agent that pays for x402 resources with the official client (`@x402/fetch` + `@x402/evm`,
 * signing with a local test account: no chain is contacted), with this service's authorization
 * registered on it. It records what the rail reported.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { requireResourceOnRequestedHost, withSpendAuthorization, type SpendAuthorizationOptions, type SpendAuthorizationOutcome } from '../../src/rails/x402/index.js';
import type { FacilitatorCall } from './x402-facilitator.js';
import { TEST_NETWORK } from './x402-merchant.js';

/** A fixed, publicly known test key (never funded anywhere): Hardhat's first development account. */
export const TEST_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface Payer {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  outcomes: SpendAuthorizationOutcome[];
  client: x402Client;
}

/**
 * The client as docs/rails/x402.md shows it: the wrapped fetch's `x402HTTPClient` checks each
 * 402 answer's resource against the URL requested (`requireResourceOnRequestedHost`), unless
 * `unchecked` (the bare `x402Client` given to `wrapFetchWithPayment`).
 */
export function createPayer(options: Omit<SpendAuthorizationOptions, 'onOutcome'>, how: { unchecked?: boolean } = {}): Payer {
  const outcomes: SpendAuthorizationOutcome[] = [];
  const client = new x402Client().register(TEST_NETWORK, new ExactEvmScheme(privateKeyToAccount(TEST_PRIVATE_KEY)));
  withSpendAuthorization(client, { ...options, onOutcome: (o) => outcomes.push(o) });
  return { fetch: wrapFetchWithPayment(fetch, how.unchecked ? client : requireResourceOnRequestedHost(new x402HTTPClient(client))), outcomes, client };
}

/** One line per facilitator call that carried a payment: what it was asked to verify or settle. */
export function describeFacilitatorCalls(calls: readonly FacilitatorCall[]): string[] {
  return calls
    .filter((c) => c.body)
    .map((c) => {
      const auth = c.body!.paymentPayload.payload.authorization;
      const r = c.body!.paymentRequirements;
      return `${c.path} ${r.network} amount=${r.amount} asset=${r.asset.slice(0, 10)}… payTo=${r.payTo.slice(0, 10)}… from=${auth.from.slice(0, 10)}… value=${auth.value} nonce=${auth.nonce.slice(0, 10)}… resource=${c.body!.paymentPayload.resource?.url ?? '?'}`;
    });
}
