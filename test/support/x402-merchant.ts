/**
 * A paywalled endpoint on 127.0.0.1 served by the official `@x402/express` middleware, settling
 * through a given facilitator. It records every request that reached it (with or without a
 * payment header) and every one its handler served.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';

/** Base Sepolia: the network the tests pay on (USDC, 6 decimals). */
export const TEST_NETWORK = 'eip155:84532';
export const TEST_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

export interface MerchantRequest {
  path: string;
  /** The x402 v2 payment header, when the request carried one. */
  paymentSignature: string | undefined;
}

export interface MerchantOptions {
  facilitatorUrl: string;
  /** The price of the n-th request (1-based), e.g. `"$0.01"`. */
  price: (n: number) => string;
  /** The address paid for the n-th request. */
  payTo: (n: number) => string;
  /** The resource URL the 402 answer declares (default: the URL requested). */
  resource?: string;
  /** The asset paid in (default: the network's USDC, which the middleware picks for a `$` price). */
  asset?: { address: string; decimals: number; name: string; version: string };
}

export interface Merchant {
  url: string;
  /** Every request that reached the middleware, in order. */
  requests: MerchantRequest[];
  /** Requests the paid handler served (payment verified). */
  served: MerchantRequest[];
  close(): Promise<void>;
}

export async function startMerchant(opts: MerchantOptions): Promise<Merchant> {
  const requests: MerchantRequest[] = [];
  const served: MerchantRequest[] = [];
  const app = express();
  app.use((req, _res, next) => {
    requests.push({ path: req.path, paymentSignature: req.get('payment-signature') });
    next();
  });
  const price = () => {
    const dollars = opts.price(requests.length);
    if (!opts.asset) return dollars;
    const atomic = BigInt(Math.round(Number(dollars.replace('$', '')) * 10 ** 6)) * 10n ** BigInt(opts.asset.decimals - 6);
    return { amount: atomic.toString(), asset: opts.asset.address, extra: { name: opts.asset.name, version: opts.asset.version } };
  };
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: opts.facilitatorUrl })).register(TEST_NETWORK, new ExactEvmScheme());
  app.use(
    paymentMiddleware(
      {
        'GET /report': {
          accepts: { scheme: 'exact', network: TEST_NETWORK, price, payTo: () => opts.payTo(requests.length), maxTimeoutSeconds: 120 },
          ...(opts.resource ? { resource: opts.resource } : {}),
          description: 'A paid report',
          mimeType: 'application/json',
        },
      },
      resourceServer,
    ),
  );
  app.get('/report', (req, res) => {
    served.push({ path: req.path, paymentSignature: req.get('payment-signature') });
    res.json({ report: 'the paid content' });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
