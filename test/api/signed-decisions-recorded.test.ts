/**
 * What a verified request signature leaves behind (DECISIONS §19, "Recorded"): decisions and
 * captures made under it carry `signature` (else null), their audit records `signed_by` inside the
 * HMAC chain, and the policy's `require_signed_requests` is re-checked where authorize reads the
 * policy. The services are driven with a caller that carries a verified signature, as the HTTP
 * gate hands it on; what they wrote is read back through the API and the database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorize, decide, groupDecisions } from '../../src/authorization/authorization.service.js';
import type { AuthorizationDeps } from '../../src/authorization/authorization.deps.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import { captureDecision, updateCaptureMetadata } from '../../src/capture/capture.service.js';
import type { Caller, RequestSignature } from '../../src/kernel/caller.js';
import { AppError } from '../../src/kernel/errors.js';
import { newId } from '../../src/kernel/ids.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;
let agentCaller: Caller;
let deps: AuthorizationDeps;

/** Two distinct thumbprints (RFC 9421's Appendix B test keys), as a verified signature names its key. */
const THUMBPRINTS = ['poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U', 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI'] as const;

let nonces = 0;
const signature = (keyid: string = THUMBPRINTS[0], signatureAgent: string | null = null): RequestSignature => ({
  agent_key_id: newId('akey'),
  keyid,
  alg: keyid === THUMBPRINTS[0] ? 'ed25519' : 'ecdsa-p256-sha256',
  signature_agent: signatureAgent,
  created: Math.floor(Date.now() / 1000),
  nonce: `nonce-${Date.now()}-${++nonces}-abcdefgh`,
});

const request = (amount = 100) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });

async function newAgent(policyOverrides: Record<string, unknown> = {}) {
  const policy = await acct.test.post('/v1/policies', policyBody(policyOverrides));
  expect(policy.status).toBe(201);
  const agent = await acct.test.post('/v1/agents', { name: 'signer', policy_id: policy.body.id });
  expect(agent.status).toBe(201);
  const key = await acct.test.post('/v1/api-keys', { name: 'agent key', role: 'agent', agent_id: agent.body.id });
  expect(key.status).toBe(201);
  const caller: Caller = { accountId: acct.id, livemode: false, keyId: key.body.id, role: 'agent', agentId: agent.body.id, plan: 'growth', rateLimit: null };
  return { policyId: policy.body.id as string, agentId: agent.body.id as string, caller, key: key.body.key as string };
}

/** The audit records of one decision, oldest first, as the API lists them. */
async function recordsOf(decisionId: string): Promise<any[]> {
  const res = await acct.test.get(`/v1/audit-logs?agent_id=${agentId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.filter((r: any) => r.decision_id === decisionId).reverse();
}

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  const a = await newAgent();
  agentId = a.agentId;
  agentCaller = a.caller;
  deps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter() };
});
afterAll(() => ctx?.close());

describe('a decision made under a signature', () => {
  test('carries its signature, field by field; its authorization.decision record carries signed_by; the chain verifies', async () => {
    const sig = signature(THUMBPRINTS[0], 'https://agents.example');
    const view = await authorize(deps, { ...agentCaller, signature: sig }, request());
    expect(view.decision).toBe('approved');
    expect(view.signature).toEqual(sig);
    expect(Object.keys(view.signature!)).toEqual(['agent_key_id', 'keyid', 'alg', 'signature_agent', 'created', 'nonce']);
    // As read back (jsonb keeps its own key order; the view shows the documented one).
    const read = await acct.test.get(`/v1/decisions/${view.decision_id}`);
    expect(read.body.signature).toEqual(sig);
    expect(Object.keys(read.body.signature)).toEqual(['agent_key_id', 'keyid', 'alg', 'signature_agent', 'created', 'nonce']);
    expect(read.body.capture).toMatchObject({ status: 'uncaptured', signature: null });

    const [record] = await recordsOf(view.decision_id);
    expect(record).toMatchObject({ type: 'authorization.decision', signed_by: THUMBPRINTS[0] });
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('an unsigned one: signature null, signed_by null', async () => {
    const view = await authorize(deps, agentCaller, request());
    expect(view.signature).toBeNull();
    expect((await acct.test.get(`/v1/decisions/${view.decision_id}`)).body.signature).toBeNull();
    const [record] = await recordsOf(view.decision_id);
    expect(record).toMatchObject({ type: 'authorization.decision', signed_by: null });
  });

  test("the webhook event's data carries the signature", async () => {
    const sig = signature();
    const view = await authorize(deps, { ...agentCaller, signature: sig }, request());
    const { rows } = await sql<{ data: any }>`SELECT data FROM events WHERE account_id = ${acct.id} AND type = 'authorize.approved' AND data->>'decision_id' = ${view.decision_id}`.execute(ctx.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data.signature).toEqual(sig);
    expect(rows[0]!.data.authorization_token).toBeUndefined();
  });
});

describe('a capture made under a signature', () => {
  test('carries capture.signature (the decision keeps its own); authorization.captured and capture_updated carry signed_by', async () => {
    const asked = signature(THUMBPRINTS[0]);
    const view = await authorize(deps, { ...agentCaller, signature: asked }, request(250));
    const capturing = signature(THUMBPRINTS[1]);
    const captured = await captureDecision({ db: ctx.database.db }, { ...agentCaller, signature: capturing }, view.decision_id, {});
    expect(captured.capture).toMatchObject({ status: 'captured', captured_amount: 250, signature: capturing });
    expect(captured.signature).toEqual(asked);
    const read = (await acct.test.get(`/v1/decisions/${view.decision_id}`)).body;
    expect(read.capture.signature).toEqual(capturing);
    expect(read.signature).toEqual(asked);

    await updateCaptureMetadata({ db: ctx.database.db }, { ...agentCaller, signature: capturing }, view.decision_id, { metadata: { settlement: 'tx_1' } });
    const records = await recordsOf(view.decision_id);
    expect(records.map((r) => [r.type, r.signed_by])).toEqual([
      ['authorization.decision', THUMBPRINTS[0]],
      ['authorization.captured', THUMBPRINTS[1]],
      ['authorization.capture_updated', THUMBPRINTS[1]],
    ]);
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('an unsigned capture of a signed decision: capture.signature null, signed_by null', async () => {
    const view = await authorize(deps, { ...agentCaller, signature: signature() }, request(40));
    const captured = await captureDecision({ db: ctx.database.db }, agentCaller, view.decision_id, {});
    expect(captured.capture!.signature).toBeNull();
    const records = await recordsOf(view.decision_id);
    expect(records.map((r) => [r.type, r.signed_by])).toEqual([
      ['authorization.decision', THUMBPRINTS[0]],
      ['authorization.captured', null],
    ]);
  });
});

describe('group commit', () => {
  test('a batch mixing signed and unsigned requests records each member with its own signature, in either order', async () => {
    const sizes: number[] = [];
    const grouped: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter(), onBatch: (n) => sizes.push(n) };
    groupDecisions(grouped, { size: 64, lingerMs: 5, inFlight: 2 });
    const other = await newAgent();
    // The first row of each table decides the column list a batch writes (batch.repository.ts):
    // one batch led by an unsigned member, one by a signed one.
    for (const leadSigned of [false, true]) {
      const members = [0, 1, 2, 3].map((i) => ({
        caller: (i % 2 === 0) === leadSigned ? { ...(i < 2 ? agentCaller : other.caller), signature: signature(THUMBPRINTS[i % 2]) } : i < 2 ? agentCaller : other.caller,
        input: { ...request(10 + i), agent_id: i < 2 ? agentId : other.agentId },
      }));
      const before = sizes.length;
      const decided = await Promise.all(members.map((m) => decide(grouped, m.caller, m.input)));
      expect(sizes.slice(before)).toEqual([4]);
      for (const [i, d] of decided.entries()) {
        expect(d.kind).toBe('decided');
        const view = d.decision;
        const sig = members[i]!.caller.signature ?? null;
        expect(view.signature).toEqual(sig);
        const row = await ctx.database.db.selectFrom('decisions').select(['signature', 'capture_signature']).where('id', '=', view.decision_id).executeTakeFirstOrThrow();
        expect(row).toEqual({ signature: sig, capture_signature: null });
        const audit = await ctx.database.db.selectFrom('audit_records').select('signed_by').where('decision_id', '=', view.decision_id).where('type', '=', 'authorization.decision').executeTakeFirstOrThrow();
        expect(audit.signed_by).toBe(sig?.keyid ?? null);
      }
    }
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });

  test('an unsigned agent request whose policy requires signatures fails alone in its batch', async () => {
    const sizes: number[] = [];
    const grouped: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter(), onBatch: (n) => sizes.push(n) };
    groupDecisions(grouped, { size: 64, lingerMs: 5, inFlight: 2 });
    const strict = await newAgent({ require_signed_requests: true });
    const input = { ...request(), agent_id: strict.agentId };
    const results = await Promise.allSettled([
      decide(grouped, { ...strict.caller, signature: signature() }, input),
      decide(grouped, strict.caller, input),
      decide(grouped, agentCaller, request()),
    ]);
    expect(sizes).toEqual([3]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'signature_required', param: 'Signature-Input' });
  });
});

describe("the policy's require_signed_requests, re-checked where authorize reads the policy", () => {
  test('an agent caller whose cached flag says nothing is refused unsigned (401 signature_required) and nothing is written', async () => {
    const strict = await newAgent({ require_signed_requests: true });
    const input = { ...request(), agent_id: strict.agentId };
    const caller = { ...strict.caller, signedRequestsRequired: undefined };
    const refused = await authorize(deps, caller, input).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'signature_required', param: 'Signature-Input' });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM decisions WHERE agent_id = ${strict.agentId}`.execute(ctx.database.db);
    expect(rows[0]!.n).toBe(0);

    // Signed, it is decided; an admin key is never checked.
    expect((await authorize(deps, { ...caller, signature: signature() }, input)).decision).toBe('approved');
    const admin = { ...caller, role: 'admin' as const, agentId: null };
    expect((await authorize(deps, admin, input)).decision).toBe('approved');
  });

  test('over HTTP, an unsigned agent key of such a policy gets 401 signature_required, not stored under its Idempotency-Key', async () => {
    const strict = await newAgent({ require_signed_requests: true });
    const client = ctx.client(strict.key);
    const body = { ...request(), agent_id: strict.agentId };
    const first = await client.post('/v1/authorize', body, { 'idempotency-key': 'signed-retry-1' });
    expect(first.status).toBe(401);
    expect(first.body.error).toMatchObject({ code: 'signature_required', param: 'Signature-Input' });
    // Turned off: the same key and Idempotency-Key is now decided (the 401 was not stored).
    expect((await acct.test.patch(`/v1/policies/${strict.policyId}`, { require_signed_requests: false })).status).toBe(200);
    const retry = await client.post('/v1/authorize', body, { 'idempotency-key': 'signed-retry-1' });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ decision: 'approved', signature: null });
  });
});

describe('the audit export', () => {
  test('the CSV export has a signed_by column with the thumbprint', async () => {
    const view = await authorize(deps, { ...agentCaller, signature: signature(THUMBPRINTS[1]) }, request(7));
    const csv = await acct.test.get(`/v1/audit-logs?agent_id=${agentId}&type=authorization.decision&limit=100`, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    const [header, ...lines] = csv.text.trimEnd().split('\r\n');
    const columns = header!.split(',');
    expect(columns.at(-1)).toBe('signed_by');
    const line = lines.find((l) => l.includes(view.decision_id))!;
    expect(line.endsWith(`,${THUMBPRINTS[1]}`)).toBe(true);
  });
});
