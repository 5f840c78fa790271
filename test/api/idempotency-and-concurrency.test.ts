import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  // This file makes more than 100 test-mode requests a minute with one account's keys.
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

async function newAgent(policy: Record<string, unknown> = {}): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  return (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: p.body.id })).body.id;
}

const body = (agentId: string, amount = 1_000) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'openai.com' });
const countDecisions = async (agentId: string) =>
  Number((await sql<{ n: number }>`SELECT count(*) AS n FROM decisions WHERE agent_id = ${agentId}`.execute(ctx.database.db)).rows[0]!.n);
const spendOf = async (agentId: string) =>
  (await sql<{ approved: number; reserved: number }>`SELECT approved, reserved FROM agent_spend WHERE agent_id = ${agentId} AND period LIKE 'M:%'`.execute(ctx.database.db)).rows[0];

describe('Idempotency-Key', () => {
  test('the same key and body replays the first response byte for byte, without deciding or spending again', async () => {
    const agentId = await newAgent();
    const first = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'order-1' });
    const again = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await countDecisions(agentId)).toBe(1);
    expect(await spendOf(agentId)).toEqual({ approved: 1_000, reserved: 0 });
  });

  test('the same key with a different body answers 409 conflict naming Idempotency-Key', async () => {
    const agentId = await newAgent();
    await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'order-2' });
    const res = await acct.test.post('/v1/authorize', body(agentId, 2_000), { 'idempotency-key': 'order-2' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    expect(await countDecisions(agentId)).toBe(1);
  });

  test('concurrent duplicates decide once: each answer is the first response replayed or a 409', async () => {
    const agentId = await newAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'burst' })),
    );
    expect(await countDecisions(agentId)).toBe(1);
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.error.param).toBe('Idempotency-Key');
    }
    const replay = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'burst' });
    expect(replay.text).toBe(ok[0]!.text);
  });

  test('keys are scoped per account and mode', async () => {
    const agentId = await newAgent();
    const other = await ctx.account();
    const p = await other.test.post('/v1/policies', policyBody());
    const otherAgent = (await other.test.post('/v1/agents', { name: 'x', policy_id: p.body.id })).body.id;
    const mine = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'shared-key' });
    const theirs = await other.test.post('/v1/authorize', body(otherAgent), { 'idempotency-key': 'shared-key' });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.decision_id).not.toBe(mine.body.decision_id);
  });

  test('a key older than 24 hours is forgotten', async () => {
    const agentId = await newAgent();
    const first = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'old' });
    await ctx.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3600_000) })
      .where('account_id', '=', acct.id)
      .where('key', '=', 'old')
      .execute();
    const later = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'old' });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.decision_id).not.toBe(first.body.decision_id);
  });

  test('works on every POST: a replayed agent creation creates one agent', async () => {
    const p = await acct.test.post('/v1/policies', policyBody());
    const a = await acct.test.post('/v1/agents', { name: 'once', policy_id: p.body.id }, { 'idempotency-key': 'agent-1' });
    const b = await acct.test.post('/v1/agents', { name: 'once', policy_id: p.body.id }, { 'idempotency-key': 'agent-1' });
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.id).toBe(a.body.id);
  });

  test('an error response is replayed too, and a key over 255 characters answers 400', async () => {
    const first = await acct.test.post('/v1/authorize', body('agt_missing'), { 'idempotency-key': 'err-1' });
    const again = await acct.test.post('/v1/authorize', body('agt_missing'), { 'idempotency-key': 'err-1' });
    expect(first.status).toBe(404);
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const long = await acct.test.post('/v1/authorize', body('agt_missing'), { 'idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe('Idempotency-Key');
  });
});

describe('Idempotency-Key: claims, keys and stored responses', () => {
  const claimOf = (key: string) =>
    ctx.database.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', acct.id).where('livemode', '=', false).where('key', '=', key).executeTakeFirst();
  const ageClaim = (key: string, ms: number) =>
    ctx.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - ms) })
      .where('account_id', '=', acct.id)
      .where('key', '=', key)
      .execute();

  test('a request still running holds its key: a retry of it answers 409 "still being processed", and after a minute the claim is taken over', async () => {
    const agentId = await newAgent();
    const first = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'stuck' });
    // As if the first request had died between its claim and its commit.
    await ctx.database.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_progress', response_status: null, response_type: null, response_body: null })
      .where('account_id', '=', acct.id)
      .where('key', '=', 'stuck')
      .execute();
    await ageClaim('stuck', 30_000);
    const busy = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'stuck' });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key', message: expect.stringContaining('still being processed') });

    await ageClaim('stuck', 61_000);
    const taken = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'stuck' });
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(taken.body.decision_id).not.toBe(first.body.decision_id);
    expect(await claimOf('stuck')).toMatchObject({ status: 'completed', response_status: 200 });
  });

  test('a completed response is kept for its 24 hours, whatever its age below that', async () => {
    const agentId = await newAgent();
    const first = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'day-old' });
    await ageClaim('day-old', 23 * 3600_000);
    const again = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'day-old' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  test('the replay carries the stored status and content type', async () => {
    const p = await acct.test.post('/v1/policies', policyBody(), { 'idempotency-key': 'typed' });
    const again = await acct.test.post('/v1/policies', policyBody(), { 'idempotency-key': 'typed' });
    expect([p.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('content-type')).toBe(p.headers.get('content-type'));
    expect(await claimOf('typed')).toMatchObject({ status: 'completed', response_status: 201, response_type: 'application/json; charset=utf-8' });
  });

  test('an authorization stored inside its own transaction replays as JSON too', async () => {
    const agentId = await newAgent();
    const first = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'typed-authorize' });
    const again = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'typed-authorize' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await claimOf('typed-authorize')).toMatchObject({ status: 'completed', response_status: 200, response_type: 'application/json; charset=utf-8' });
  });

  test('the replay answers with the content type stored with the response', async () => {
    await acct.test.post('/v1/policies', policyBody(), { 'idempotency-key': 'typed-text' });
    await ctx.database.db.updateTable('idempotency_keys').set({ response_type: 'text/plain; charset=utf-8' }).where('account_id', '=', acct.id).where('key', '=', 'typed-text').execute();
    // A row changed behind the service's back answers what no route documents: sent with plain
    // fetch, past the test clients' OpenAPI conformance check.
    const again = await fetch(`${ctx.baseUrl}/v1/policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json', 'idempotency-key': 'typed-text' },
      body: JSON.stringify(policyBody()),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  test('a body that fails validation is refused (400) before the key is looked up, even with a key already used', async () => {
    const agentId = await newAgent();
    await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'then-invalid' });
    const res = await acct.test.post('/v1/authorize', { ...body(agentId), amount: 'lots' }, { 'idempotency-key': 'then-invalid' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'amount' });
  });

  test("a stored response copied onto another key's row does not open there (its scope is authenticated)", async () => {
    const agentId = await newAgent();
    await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'copy-from' });
    await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'copy-to' });
    const from = (await claimOf('copy-from'))!;
    await ctx.database.db.updateTable('idempotency_keys').set({ response_body: from.response_body }).where('account_id', '=', acct.id).where('key', '=', 'copy-to').execute();
    const res = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'copy-to' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('can no longer be read');
  });

  test('a stored response that no longer opens (the server key changed) answers 409, and is never replayed as garbage', async () => {
    const agentId = await newAgent();
    await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'rekeyed' });
    const row = (await claimOf('rekeyed'))!;
    const [version, iv, , data] = row.response_body!.split('.');
    await ctx.database.db
      .updateTable('idempotency_keys')
      .set({ response_body: [version, iv, Buffer.alloc(16).toString('base64url'), data].join('.') })
      .where('account_id', '=', acct.id)
      .where('key', '=', 'rekeyed')
      .execute();
    const res = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': 'rekeyed' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key', message: expect.stringContaining('can no longer be read') });
  });

  test('the same key and body on another route is another request (409); the query string is no part of it', async () => {
    const agentId = await newAgent();
    const frozen = await acct.test.post(`/v1/agents/${agentId}/freeze`, {}, { 'idempotency-key': 'route' });
    expect(frozen.status).toBe(200);
    const again = await acct.test.post(`/v1/agents/${agentId}/freeze?via=query`, {}, { 'idempotency-key': 'route' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(frozen.text);
    const elsewhere = await acct.test.post(`/v1/agents/${agentId}/unfreeze`, {}, { 'idempotency-key': 'route' });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key', message: expect.stringContaining('different request') });
  });

  test.each([
    ['255 characters', 'k'.repeat(255), true],
    ['one character', 'k', true],
    ['printable ASCII punctuation', '!~#$%&()*+,-./:;<=>?@[]^_`{|}', true],
    ['an inner space', 'a b', false],
    ['a tab', 'a\tb', false],
    ['a character beyond ASCII', 'clé', false],
  ])('a key of %s is %s', async (_what, key, accepted) => {
    const agentId = await newAgent();
    const res = await acct.test.post('/v1/authorize', body(agentId), { 'idempotency-key': key });
    if (accepted) {
      expect(res.status).toBe(200);
      expect(await claimOf(key)).toMatchObject({ status: 'completed' });
    } else {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key', message: 'Idempotency-Key must be 1–255 printable characters.' });
    }
  });

  test('only POST is idempotent, and an unknown route stores nothing', async () => {
    const get = await acct.test.get('/v1/agents', { 'idempotency-key': 'a-get' });
    expect(get.status).toBe(200);
    const unknown = await acct.test.post('/v1/nothing-here', {}, { 'idempotency-key': 'a-404' });
    expect(unknown.status).toBe(404);
    expect(await claimOf('a-get')).toBeUndefined();
    expect(await claimOf('a-404')).toBeUndefined();
  });
});

describe('concurrent authorizations of one agent', () => {
  test('200 concurrent requests against a budget that fits exactly 37: 37 approved, never overspent, one decision and one audit record each', async () => {
    const agentId = await newAgent({ budget_monthly: 37 * 100, budget_single_max: 100 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => acct.test.post('/v1/authorize', { ...body(agentId, 100), metadata: { n: i } })),
    );
    expect(results.map((r) => r.status).every((s) => s === 200)).toBe(true);
    const approved = results.filter((r) => r.body.decision === 'approved');
    expect(approved).toHaveLength(37);
    expect(results.filter((r) => r.body.decision === 'denied').every((r) => r.body.reason_code === 'budget_exceeded')).toBe(true);
    expect(await spendOf(agentId)).toEqual({ approved: 3_700, reserved: 0 });

    const ids = results.map((r) => r.body.decision_id);
    expect(new Set(ids).size).toBe(200);
    expect(await countDecisions(agentId)).toBe(200);
    const audit = await sql<{ decision_id: string; n: number }>`
      SELECT decision_id, count(*) AS n FROM audit_records
      WHERE agent_id = ${agentId} AND type = 'authorization.decision' GROUP BY decision_id`.execute(ctx.database.db);
    expect(audit.rows).toHaveLength(200);
    expect(audit.rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect(new Set(audit.rows.map((r) => r.decision_id))).toEqual(new Set(ids));
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
  });
});
