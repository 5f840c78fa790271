/**
 * A local x402 v2 facilitator on 127.0.0.1, written from the x402 v2 specification (facilitator
 * interface: `POST /verify`, `POST /settle`, `GET /supported`), for the exact scheme on EVM
 * networks with EIP-3009 `transferWithAuthorization` payloads. It records every request it is
 * asked. No chain is contacted: verification recovers the EIP-712 signer offline (viem), and
 * settlement answers a transaction hash derived from the signature instead of broadcasting.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddress, recoverTypedDataAddress, type Hex } from 'viem';

/** What the facilitator was asked, in order. */
export interface FacilitatorCall {
  path: '/verify' | '/settle' | '/supported';
  body: FacilitatorRequest | null;
}

/** The body of `/verify` and `/settle` (x402 v2). */
export interface FacilitatorRequest {
  x402Version: number;
  paymentPayload: {
    x402Version: number;
    accepted: Requirements;
    resource?: { url: string };
    payload: { signature: Hex; authorization: Authorization };
  };
  paymentRequirements: Requirements;
}

interface Requirements {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

// EIP-3009's TransferWithAuthorization, as the token contract's EIP-712 domain signs it.
const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export interface FacilitatorOptions {
  networks: string[];
  /** `/settle` answers `success: false` with this reason while set (a failed settlement). */
  failSettlement?: () => string | undefined;
}

export interface LocalFacilitator {
  url: string;
  calls: FacilitatorCall[];
  /** The `/verify` and `/settle` calls only: what carried a payment. */
  payments(): FacilitatorCall[];
  close(): Promise<void>;
}

/** Why a payment does not verify, or undefined when it does (x402 v2 `invalidReason` values). */
async function invalidReason(req: FacilitatorRequest, now: number): Promise<{ reason?: string; payer?: string }> {
  const { paymentPayload: p, paymentRequirements: r } = req;
  if (req.x402Version !== 2 || p.x402Version !== 2) return { reason: 'invalid_x402_version' };
  if (r.scheme !== 'exact' || p.accepted.scheme !== 'exact') return { reason: 'unsupported_scheme' };
  if (p.accepted.network !== r.network) return { reason: 'invalid_network' };
  const auth = p.payload.authorization;
  const chainId = Number(r.network.split(':')[1]);
  const name = r.extra.name;
  const version = r.extra.version;
  if (typeof name !== 'string' || typeof version !== 'string') return { reason: 'invalid_exact_evm_payload_signature' };
  const payer = await recoverTypedDataAddress({
    domain: { name, version, chainId, verifyingContract: getAddress(r.asset) },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: getAddress(auth.from),
      to: getAddress(auth.to),
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce,
    },
    signature: p.payload.signature,
  }).catch(() => undefined);
  if (!payer || getAddress(payer) !== getAddress(auth.from)) return { reason: 'invalid_exact_evm_payload_signature' };
  if (getAddress(auth.to) !== getAddress(r.payTo)) return { reason: 'invalid_exact_evm_payload_recipient_mismatch', payer };
  if (BigInt(auth.value) !== BigInt(r.amount)) return { reason: 'invalid_exact_evm_payload_authorization_value', payer };
  if (BigInt(auth.validBefore) <= BigInt(now)) return { reason: 'invalid_exact_evm_payload_authorization_valid_before', payer };
  if (BigInt(auth.validAfter) > BigInt(now)) return { reason: 'invalid_exact_evm_payload_authorization_valid_after', payer };
  return { payer };
}

/** Starts the facilitator on 127.0.0.1 (an ephemeral port). */
export async function startFacilitator(opts: FacilitatorOptions): Promise<LocalFacilitator> {
  const calls: FacilitatorCall[] = [];
  const settledNonces = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '/').split('?')[0] as FacilitatorCall['path'];
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as FacilitatorRequest) : null;
        calls.push({ path, body });
        const send = (status: number, value: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        if (req.method === 'GET' && path === '/supported') {
          return send(200, { kinds: opts.networks.map((network) => ({ x402Version: 2, scheme: 'exact', network })), extensions: [], signers: {} });
        }
        if (req.method !== 'POST' || !body || (path !== '/verify' && path !== '/settle')) return send(404, { error: 'not found' });
        const now = Math.floor(Date.now() / 1000);
        const { reason, payer } = await invalidReason(body, now);
        if (path === '/verify') return send(200, reason ? { isValid: false, invalidReason: reason, ...(payer ? { payer } : {}) } : { isValid: true, payer });
        const network = body.paymentRequirements.network;
        const nonce = body.paymentPayload.payload.authorization.nonce;
        const failure = reason ?? (settledNonces.has(nonce) ? 'invalid_exact_evm_payload_authorization_nonce_used' : opts.failSettlement?.());
        if (failure) return send(200, { success: false, errorReason: failure, transaction: '', network, ...(payer ? { payer } : {}) });
        settledNonces.add(nonce);
        // A transaction hash of this payment, as a chain would return one: stable and unique per signature.
        const transaction = `0x${createHash('sha256').update(body.paymentPayload.payload.signature).digest('hex')}`;
        return send(200, { success: true, transaction, network, payer });
      })().catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err) }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    payments: () => calls.filter((c) => c.path !== '/supported'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
