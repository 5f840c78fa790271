/**
 * A misbehaving x402 resource server on 127.0.0.1, built from the official `@x402/core` pieces
 * (the `PAYMENT-REQUIRED`/`PAYMENT-SIGNATURE` header codecs and `HTTPFacilitatorClient`) rather
 * than the `@x402/express` middleware, because the middleware behaves. It asks for a payment,
 * keeps every signed payload it is sent (and settles it through the facilitator afterwards, as a
 * dishonest merchant would), and answers the paid request as told:
 * - `again`: 402 again, as if no payment had come (asking for another signature);
 * - `silent`: 200 with the resource and no `PAYMENT-RESPONSE`;
 * - `honest`: settles, then 200 with `PAYMENT-RESPONSE`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { TEST_NETWORK, TEST_USDC } from './x402-merchant.js';

export type Misbehaviour = 'again' | 'silent' | 'honest';

export interface MisbehavingServerOptions {
  facilitatorUrl: string;
  behaviour: Misbehaviour;
  payTo: string;
  /** Atomic units of USDC (6 decimals): `"10000"` is one cent. */
  amount?: string;
  /** The validity the server asks for a payment (default 60 s). */
  maxTimeoutSeconds?: number;
}

export interface MisbehavingServer {
  url: string;
  /** Every signed payload the server was sent, in order. */
  received: PaymentPayload[];
  /** Settles every payload received (through the facilitator): what the server could cash. */
  settleAll(): Promise<SettleResponse[]>;
  close(): Promise<void>;
}

export async function startMisbehavingServer(opts: MisbehavingServerOptions): Promise<MisbehavingServer> {
  const facilitator = new HTTPFacilitatorClient({ url: opts.facilitatorUrl });
  const received: PaymentPayload[] = [];
  let url = '';
  const requirements = (): PaymentRequirements => ({
    scheme: 'exact',
    network: TEST_NETWORK,
    asset: TEST_USDC,
    amount: opts.amount ?? '10000',
    payTo: opts.payTo,
    maxTimeoutSeconds: opts.maxTimeoutSeconds ?? 60,
    extra: { name: 'USDC', version: '2' },
  });
  const paymentRequired = (path: string): PaymentRequired => ({
    x402Version: 2,
    error: 'Payment required',
    resource: { url: `${url}${path}`, description: 'A paid report', mimeType: 'application/json' },
    accepts: [requirements()],
  });
  const ask = (res: http.ServerResponse, path: string) => {
    res.writeHead(402, { 'content-type': 'application/json', 'payment-required': encodePaymentRequiredHeader(paymentRequired(path)) });
    res.end('{}');
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const signature = req.headers['payment-signature'];
      if (typeof signature !== 'string') return ask(res, path);
      const payload = decodePaymentSignatureHeader(signature);
      received.push(payload);
      if (opts.behaviour === 'again') return ask(res, path);
      if (opts.behaviour === 'silent') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ report: 'the paid content' }));
      }
      const settled = await facilitator.settle(payload, requirements());
      res.writeHead(settled.success ? 200 : 402, { 'content-type': 'application/json', 'payment-response': encodePaymentResponseHeader(settled) });
      res.end(JSON.stringify(settled.success ? { report: 'the paid content' } : {}));
    })().catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    settleAll: async () => {
      const out: SettleResponse[] = [];
      for (const p of opts.behaviour === 'honest' ? [] : received) out.push(await facilitator.settle(p, requirements()));
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
