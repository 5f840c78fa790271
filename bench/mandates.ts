// `npm run bench -- --mandates --rate 500`: what an AP2 mandate verification (DECISIONS §20) costs
// the API against an authorize decision. Each agent gets a P-256 agent key and one ON_DEMAND mandate
// with a budget no load reaches, issued through POST /v1/mandates; the presentations are closed
// with the agent's key (closeMandate, the client's CPU) before the clock starts, one per request,
// each for a new transaction, so every request is a first presentation, decided and approved.
// Both loads use the admin key (never signature-checked) and are all approvals.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { closeMandate } from '../src/client/mandate-close.js';
import { apiPost } from './harness.js';
import type { LoadRequest } from './signed-agents.js';

/** The issue's budget: a verification costs at most this many times an authorize decision's API CPU. */
export const MANDATE_CPU_RATIO_BUDGET = 3;
export const MANDATE_VARIANTS = ['authorize', 'verify'] as const;
export type MandateVariant = (typeof MANDATE_VARIANTS)[number];

const PAYEE = { id: 'bench-merchant', name: 'Bench Merchant', website: 'https://shop.example' };
const INSTRUMENT = { id: 'card-1', type: 'card' };
/** Far above any run's spend (minor units), and a whole number of major units (AP2's SDK reads it ×100). */
const BUDGET = 1_000_000_000_00;
/** Each presentation's amount: approved by the bench's policy (below its approval threshold, which a mandate skips anyway). */
const amount = () => 1_000 + Math.floor(Math.random() * 9_000);

export interface BenchMandate {
  id: string;
  agentId: string;
  credential: string;
  openCheckoutHash: string;
  agentJwk: JWK;
  /** The credential's issuer: the closed part's audience. */
  iss: string;
}

/** A P-256 agent key and an ON_DEMAND mandate bound to it, for each agent. */
export async function issueMandates(base: string, adminKey: string, agentIds: string[]): Promise<BenchMandate[]> {
  const mandates: BenchMandate[] = [];
  for (const agentId of agentIds) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const agentJwk = privateKey.export({ format: 'jwk' }) as JWK;
    const { d: _private, ...publicJwk } = agentJwk;
    const key = await apiPost(base, adminKey, `/v1/agents/${agentId}/keys`, { jwk: publicJwk, name: 'bench mandates' });
    const openCheckoutHash = randomBytes(32).toString('base64url');
    const mandate = await apiPost(base, adminKey, '/v1/mandates', {
      agent_id: agentId,
      agent_key_id: key.id,
      open_checkout_hash: openCheckoutHash,
      payees: [PAYEE],
      payment_instruments: [INSTRUMENT],
      budget: BUDGET,
      recurrence: { frequency: 'ON_DEMAND' },
      category: 'saas',
      expires_in: 86_400,
    });
    const credential = mandate.credential as string;
    const { iss } = JSON.parse(Buffer.from(credential.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string };
    mandates.push({ id: mandate.id, agentId, credential, openCheckoutHash, agentJwk, iss });
  }
  return mandates;
}

/**
 * `count` verify bodies, each a new closed mandate (a new transaction) of a mandate taken in turn.
 * Closed now, so the load generator only sends them; used within minutes (a closed part's `iat`
 * is good for 300 s).
 */
export async function closePresentations(mandates: BenchMandate[], count: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const m = mandates[i % mandates.length]!;
    const presentation = await closeMandate(m.credential, {
      agentJwk: m.agentJwk,
      transaction_id: randomBytes(32).toString('base64url'),
      payee: PAYEE,
      payment_amount: { amount: amount(), currency: 'USD' },
      payment_instrument: INSTRUMENT,
      aud: m.iss,
      nonce: randomBytes(16).toString('base64url'),
    });
    bodies.push(JSON.stringify({ presentation, open_checkout_hash: m.openCheckoutHash }));
  }
  return bodies;
}

/**
 * The verify load: each request sends the next body. Past the last one it starts again, and those
 * are replays (cheaper: no decision), counted in `replays` so a run that ran out says so.
 */
export function verifyLoad(adminKey: string, bodies: string[]): LoadRequest & { replays: () => number } {
  let next = 0;
  const load = () => {
    const body = bodies[next % bodies.length]!;
    next++;
    return { body, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, path: '/v1/mandates/verify' };
  };
  return Object.assign(load, { replays: () => Math.max(0, next - bodies.length) });
}

/** The authorize load it is compared with: approvals of the same agents, amounts and vendor. */
export function authorizeLoad(adminKey: string, mandates: BenchMandate[]): LoadRequest {
  return () => {
    const m = mandates[Math.floor(Math.random() * mandates.length)]!;
    const body = JSON.stringify({ agent_id: m.agentId, amount: amount(), currency: 'USD', vendor: 'shop.example', category: 'saas' });
    return { body, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, path: '/v1/authorize' };
  };
}

/** The approvals the mandates counted so far (their `uses`): how many verifications were decided and approved. */
export async function mandateUses(base: string, adminKey: string, mandates: BenchMandate[]): Promise<number> {
  let uses = 0;
  for (const m of mandates) {
    const res = await fetch(`${base}/v1/mandates/${m.id}`, { headers: { authorization: `Bearer ${adminKey}` } });
    if (!res.ok) throw new Error(`GET /v1/mandates/${m.id} → ${res.status}`);
    uses += ((await res.json()) as { uses: number }).uses;
  }
  return uses;
}
