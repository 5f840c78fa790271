import type { PaymentRequired } from '@x402/core/types';
import type { x402HTTPClient } from '@x402/core/client';

/** The URL requested for each 402 answer whose declared resource was checked against it. */
const checked = new WeakMap<PaymentRequired, string>();

/**
 * Refuses a payment whose declared resource (`PAYMENT-REQUIRED`'s `resource.url`, the vendor the
 * decision is asked for) is on another host than the URL actually requested, so a server cannot
 * present itself as a vendor the policy trusts. Registers on the `x402HTTPClient` given to
 * `wrapFetchWithPayment`; the wrapped fetch then throws before any payment is created. The
 * authorization (`withSpendAuthorization`, `requireResourceOnRequestedHost` on by default) pays
 * only 402 answers checked here.
 */
export function requireResourceOnRequestedHost<C extends x402HTTPClient>(httpClient: C): C {
  httpClient.onPaymentRequired(async ({ paymentRequired, requestUrl }) => {
    const declared = hostOf(paymentRequired.resource?.url);
    const requested = hostOf(requestUrl);
    if (!declared || declared !== requested) {
      throw new Error(`spend authorization refused: the payment is declared for ${declared ?? 'no resource'}, but ${requested ?? requestUrl} was requested. No payment was made.`);
    }
    checked.set(paymentRequired, requestUrl);
  });
  return httpClient;
}

/** The URL requested for this 402 answer, when `requireResourceOnRequestedHost` checked it. */
export function checkedRequestUrl(paymentRequired: PaymentRequired): string | undefined {
  return checked.get(paymentRequired);
}

export function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}
