import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auditInsert, auditRecord, sealChain } from '../../src/audit/audit.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let policyId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  policyId = (await acct.test.post('/v1/policies', policyBody())).body.id;
});
afterAll(() => ctx?.close());

describe('GET /v1/audit-logs', () => {
  test('lists records newest first with chain fields, and pages without repeats or gaps', async () => {
    const a = await ctx.account();
    const pol = (await a.test.post('/v1/policies', policyBody())).body.id;
    for (let i = 0; i < 12; i++) await a.test.post('/v1/agents', { name: `a${i}`, policy_id: pol });
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await a.test.get(`/v1/audit-logs?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      seen.push(...res.body.data.map((r: any) => r.sequence));
      cursor = res.body.next_cursor;
      if (!res.body.has_more) expect(cursor).toBeNull();
    } while (cursor);
    // 1 key + 1 policy + 12 agents
    expect(seen).toEqual(Array.from({ length: 14 }, (_, i) => 14 - i));
    const first = (await a.test.get('/v1/audit-logs?limit=1')).body.data[0];
    expect(first).toMatchObject({ object: 'audit_record', type: 'agent.created', actor: { type: 'api_key' } });
    expect(first.id).toMatch(/^aud_/);
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.prev_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('defaults to 50 records and refuses a limit above 100', async () => {
    const a = await ctx.account();
    const pol = (await a.test.post('/v1/policies', policyBody())).body.id;
    await Promise.all(Array.from({ length: 55 }, (_, i) => a.test.post('/v1/agents', { name: `a${i}`, policy_id: pol })));
    expect((await a.test.get('/v1/audit-logs')).body.data).toHaveLength(50);
    expect((await a.test.get('/v1/audit-logs?limit=100')).body.data).toHaveLength(57);
    for (const limit of ['101', '', '1e1', '%2010']) {
      const res = await a.test.get(`/v1/audit-logs?limit=${limit}`);
      expect(res.status, `limit=${limit}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    }
  });

  test('filters by agent_id and by time window [from, to)', async () => {
    const agent = (await acct.test.post('/v1/agents', { name: 'filtered', policy_id: policyId })).body;
    await acct.test.post(`/v1/agents/${agent.id}/freeze`);
    const byAgent = await acct.test.get(`/v1/audit-logs?agent_id=${agent.id}`);
    expect(byAgent.body.data.map((r: any) => r.type)).toEqual(['agent.frozen', 'agent.created']);
    const created = byAgent.body.data[1].created_at;
    const frozen = byAgent.body.data[0].created_at;
    const window = await acct.test.get(`/v1/audit-logs?agent_id=${agent.id}&from=${created}&to=${frozen}`);
    expect(window.body.data.map((r: any) => r.type)).toEqual(
      created === frozen ? [] : ['agent.created'],
    );
    const future = await acct.test.get(`/v1/audit-logs?from=2999-01-01T00:00:00Z`);
    expect(future.body.data).toEqual([]);
  });

  test.each([
    ['decision=maybe', 'decision'],
    ['from=yesterday', 'from'],
    ['cursor=!!!', 'cursor'],
    ['colour=red', 'colour'],
  ])('a bad query (%s) answers 400 naming %s', async (query, param) => {
    const res = await acct.test.get(`/v1/audit-logs?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('Accept: text/csv returns the same page as RFC 4180 CSV with the next cursor in X-Next-Cursor', async () => {
    const json = await acct.test.get('/v1/audit-logs?limit=2');
    const csv = await acct.test.get('/v1/audit-logs?limit=2', { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,type,actor_type,actor_id,agent_id,decision_id,decision,amount,currency,vendor,category,policy_id,reason,metadata,livemode,created_at,sequence,prev_hash,hash,signed_by');
    expect(lines).toHaveLength(3);
    expect(lines[1]!.startsWith(`${json.body.data[0].id},`)).toBe(true);
    expect(csv.headers.get('x-next-cursor')).toBe(json.body.next_cursor);
  });

  test('reviewers may read the log; agent keys may not (403)', async () => {
    const agent = (await acct.test.post('/v1/agents', { name: 'r', policy_id: policyId })).body;
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
    const agentKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'g', role: 'agent', agent_id: agent.id })).body.key);
    expect((await reviewer.get('/v1/audit-logs')).status).toBe(200);
    expect((await reviewer.get('/v1/audit-logs/verify')).status).toBe(200);
    expect((await agentKey.get('/v1/audit-logs')).status).toBe(403);
  });

  test('test and live chains are separate', async () => {
    const live = acct.live!;
    await live.post('/v1/policies', policyBody({ name: 'live one' }));
    const liveLog = await live.get('/v1/audit-logs?limit=100');
    expect(liveLog.body.data.every((r: any) => r.livemode === true)).toBe(true);
    expect(liveLog.body.data.map((r: any) => r.sequence).sort((x: number, y: number) => x - y)).toEqual([1, 2]);
    const testLog = await acct.test.get('/v1/audit-logs?limit=100');
    expect(testLog.body.data.every((r: any) => r.livemode === false)).toBe(true);
  });
});

describe('append-only audit records', () => {
  test.each([
    ['UPDATE', sql`UPDATE audit_records SET reason = 'rewritten'`],
    ['DELETE', sql`DELETE FROM audit_records`],
    ['TRUNCATE', sql`TRUNCATE audit_records`],
  ])('%s on audit_records fails in the database itself', async (_op, statement) => {
    await expect(statement.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    const verify = await acct.test.get('/v1/audit-logs/verify');
    expect(verify.body.valid).toBe(true);
  });
});

describe('GET /v1/audit-logs/verify', () => {
  test('recomputes the chain and reports its length and head', async () => {
    const a = await ctx.account();
    await a.test.post('/v1/policies', policyBody());
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    const newest = (await a.test.get('/v1/audit-logs?limit=1')).body.data[0];
    expect(res.body).toMatchObject({ valid: true, records: 2, head_hash: newest.hash });
  });

  test('detects a tampered record', async () => {
    const a = await ctx.account();
    const pol = (await a.test.post('/v1/policies', policyBody())).body.id;
    await a.test.post('/v1/agents', { name: 'x', policy_id: pol });
    await a.test.post('/v1/agents', { name: 'y', policy_id: pol });
    expect((await a.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);

    // Tampering needs the guard off; doing it inside one transaction keeps other sessions protected.
    await ctx.database.db.transaction().execute(async (trx) => {
      await sql`ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_update`.execute(trx);
      await sql`UPDATE audit_records SET metadata = '{"name":"forged"}' WHERE account_id = ${a.id} AND sequence = 3`.execute(trx);
      await sql`ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_update`.execute(trx);
    });
    const res = await a.test.get('/v1/audit-logs/verify');
    expect(res.body).toMatchObject({ valid: false, records: 4, first_invalid_sequence: 3 });
  });
});

describe('sealing order', () => {
  test('records written by one transaction in the same millisecond are chained in the order they were written', async () => {
    const a = await ctx.account();
    const at = new Date();
    // Ids sort the other way round from the order of writing, and the timestamps tie. Unique per
    // run: records cannot be deleted, and a PostgreSQL test database outlives a run.
    const tail = randomBytes(10).toString('hex');
    const first = { ...auditRecord({ accountId: a.id, livemode: false, type: 'test.first', actor: { type: 'system', id: null } }), id: `aud_zzzz${tail}`, created_at: at };
    const second = { ...auditRecord({ accountId: a.id, livemode: false, type: 'test.second', actor: { type: 'system', id: null } }), id: `aud_0000${tail}`, created_at: at };
    await ctx.database.db.transaction().execute(async (trx) => {
      await auditInsert(trx, first).execute();
      await auditInsert(trx, second).execute();
    });
    await sealChain(ctx.database.db, a.id, false);
    const rows = (await sql<{ type: string; sequence: number }>`SELECT type, sequence FROM audit_records WHERE account_id = ${a.id} AND type LIKE 'test.%' ORDER BY sequence`.execute(ctx.database.db)).rows;
    expect(rows.map((r) => r.type)).toEqual(['test.first', 'test.second']);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });
});
