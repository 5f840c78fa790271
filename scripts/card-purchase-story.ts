/**
 * One whole card purchase, logged step by step (docs/rails/stripe-issuing.md): the agent asks and
 * is approved; the card swipe (Stripe's real-time authorization request, signed with the official
 * package) matches that approval and captures it; the transaction settles; the audit log verifies.
 *
 *   npx tsx scripts/card-purchase-story.ts      (an embedded service of its own, in memory)
 *
 * The story itself (`cardPurchaseStory`) talks HTTP only, so test/e2e/card-purchase-story.test.ts
 * runs it against the test service too.
 */
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';

const FIXTURES = path.resolve(import.meta.dirname, '../test/fixtures/stripe');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Record<string, any>;

type Json = Record<string, any>;

/** What the story saw, for a test to check. */
export interface StoryOutcome {
  decisionId: string;
  swipeAnswer: Json;
  decision: Json;
  auditTypes: string[];
  verification: Json;
}

export async function cardPurchaseStory(baseUrl: string, adminKey: string, log: (line: string) => void): Promise<StoryOutcome> {
  const call = async (key: string, method: string, p: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${baseUrl}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Json;
    if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const money = (minor: number) => `${(minor / 100).toFixed(2)} USD`;
  const stripe = async (connectionId: string, secret: string, type: string, object: Json) => {
    const event = { id: `evt_story_${type.replace(/\W/g, '_')}_${Date.now()}`, object: 'event', api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type };
    const payload = JSON.stringify(event);
    const res = await fetch(`${baseUrl}/rails/stripe-issuing/${connectionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) },
      body: payload,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${type} → ${res.status} ${text}`);
    return { body: JSON.parse(text) as Json, version: res.headers.get('stripe-version') };
  };

  log('── setting up (admin key) ──');
  const policy = await call(adminKey, 'POST', '/v1/policies', { name: 'Office supplies', budget_monthly: 50_000, budget_single_max: 20_000, require_approval_above: 10_000 });
  const agent = await call(adminKey, 'POST', '/v1/agents', { name: 'Procurement bot', policy_id: policy.id });
  const agentKey = (await call(adminKey, 'POST', '/v1/api-keys', { name: 'procurement bot', mode: 'test', role: 'agent', agent_id: agent.id })).key as string;
  const secret = `whsec_story${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const connection = await call(adminKey, 'POST', '/v1/rail-connections', { type: 'stripe_issuing', signing_secret: secret });
  log(`policy ${policy.id}: budget ${money(policy.budget_monthly)} a month, approval above ${money(policy.require_approval_above)}`);
  log(`agent ${agent.id} (${agent.name}), with an agent key of its own`);
  log(`rail connection ${connection.id}: Stripe's real-time authorization webhook → ${connection.endpoint_url} (Stripe-Version ${connection.stripe_version}, on_timeout ${connection.on_timeout})`);
  log(`card ic_… carries metadata.agent_id = ${agent.id}`);

  log('── 1. the agent asks before buying ──');
  const asked = await call(agentKey, 'POST', '/v1/authorize', { agent_id: agent.id, amount: 4_200, currency: 'USD', vendor: 'shop.example', category: 'office_supplies', metadata: { order: 'PO-1042' } });
  log(`POST /v1/authorize {amount: 4200, vendor: shop.example} → ${asked.decision} ${asked.decision_id}, token ${String(asked.authorization_token).slice(0, 16)}…, capture ${asked.capture.status} before ${asked.capture.capture_before}`);

  log('── 2. the card is swiped at the merchant; Stripe asks ──');
  const authorization = fixture('issuing.authorization');
  authorization.id = `iauth_story${Date.now()}`;
  authorization.card.metadata = { agent_id: agent.id };
  authorization.pending_request = { ...authorization.pending_request, amount: 3_980, merchant_amount: 3_980 };
  authorization.merchant_data = { ...authorization.merchant_data, name: 'SHOP.EXAMPLE', url: 'https://shop.example/checkout', category: 'stationery_office_supplies_printing_and_writing_paper' };
  const swipe = await stripe(connection.id, secret, 'issuing_authorization.request', authorization);
  log(`issuing_authorization.request ${authorization.id} for ${money(3_980)} at shop.example → HTTP 200 ${JSON.stringify(swipe.body)} (Stripe-Version ${swipe.version})`);
  const captured = await call(adminKey, 'GET', `/v1/decisions/${asked.decision_id}`);
  log(`decision ${captured.decision_id}: matched the approval, capture ${captured.capture.status} ${money(captured.capture.captured_amount)} (the other ${money(captured.amount - captured.capture.captured_amount)} released at once)`);

  log('── 3. Stripe reports the authorization, then the settlement ──');
  const created = { ...authorization, approved: true, status: 'pending', amount: 3_980, pending_request: null };
  log(`issuing_authorization.created (approved, pending ${money(3_980)}) → ${JSON.stringify((await stripe(connection.id, secret, 'issuing_authorization.created', created)).body)}`);
  const transaction = { ...fixture('issuing.transaction'), id: `ipi_story${Date.now()}`, authorization: authorization.id, type: 'capture', amount: -3_980, merchant_amount: -3_980 };
  log(`issuing_transaction.created ${transaction.id} (capture ${money(3_980)}) → ${JSON.stringify((await stripe(connection.id, secret, 'issuing_transaction.created', transaction)).body)}`);
  const closed = { ...created, status: 'closed', amount: 0, transactions: [transaction] };
  log(`issuing_authorization.updated (closed) → ${JSON.stringify((await stripe(connection.id, secret, 'issuing_authorization.updated', closed)).body)}`);
  const settled = await call(adminKey, 'GET', `/v1/decisions/${asked.decision_id}`);
  log(`decision ${settled.decision_id}: ${settled.decision}, capture ${settled.capture.status} ${money(settled.capture.captured_amount)} at ${settled.capture.captured_at}`);

  log('── 4. the audit log ──');
  const records = ((await call(adminKey, 'GET', `/v1/audit-logs?agent_id=${agent.id}&limit=100`)).data as Json[]).reverse();
  for (const r of records) log(`#${r.sequence} ${r.type} ${r.decision_id ?? ''} actor ${r.actor.type}:${r.actor.id} ${r.amount === null ? '' : money(r.amount)} ${r.reason ?? ''}`.replace(/\s+/g, ' ').trim());
  const verification = await call(adminKey, 'GET', '/v1/audit-logs/verify');
  log(`GET /v1/audit-logs/verify → valid ${verification.valid}, ${verification.records} records, head ${String(verification.head_hash).slice(0, 16)}…`);
  return { decisionId: asked.decision_id, swipeAnswer: swipe.body, decision: settled, auditTypes: records.map((r) => r.type as string), verification };
}

/** Run directly: an embedded service in memory, one account, the story. */
async function main(): Promise<void> {
  const { connectDatabase } = await import('../src/db/connect.js');
  const { migrateToLatest } = await import('../src/db/migrate.js');
  const { createAccount } = await import('../src/accounts/accounts.service.js');
  const { startHttpServer } = await import('../src/http/server.js');
  const { createLogger } = await import('../src/kernel/logger.js');
  const { generatePrivateJwk, keysFromJwks } = await import('../src/tokens/signing-keys.js');
  const { TemporalGateway } = await import('../src/temporal/gateway.js');
  const { useAuditHmacKey } = await import('../src/kernel/audit-key.js');
  const { stripeIssuingRail } = await import('../src/rails/stripe-issuing/endpoint.js');
  const { randomBytes } = await import('node:crypto');

  useAuditHmacKey(randomBytes(32));
  const database = await connectDatabase({ dataDir: 'memory://' });
  await migrateToLatest(database.db);
  const account = await createAccount(database.db, { name: 'Story', plan: 'growth' });
  const signer = { issuer: 'spend-auth', keys: await keysFromJwks([await generatePrivateJwk()]) };
  // No workflow engine is needed: nothing in the story is held.
  const gateway = new TemporalGateway({ address: '127.0.0.1:1', namespace: 'default', taskQueue: 'spend-authorization' });
  const server = await startHttpServer(database, { port: 0 }, { signer, gateway, engine: { current: async () => 'unknown' as const }, idempotencyKey: randomBytes(32), rails: { stripeIssuing: stripeIssuingRail } }, createLogger('silent'), '127.0.0.1');
  try {
    await cardPurchaseStory(`http://127.0.0.1:${server.port}`, account.keys.test, (line) => console.log(line));
  } finally {
    await server.close(100);
    await gateway.close();
    await database.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
