/** Attack: a test-mode admin key (easy to leak: CI, laptops) mints live admin keys. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const liveKeys = async () =>
  (await ctx.database.db.selectFrom('api_keys').select('id').where('account_id', '=', acct.id).where('livemode', '=', true).execute()).length;

describe('a key mints keys of its own mode only', () => {
  test.each(['admin', 'reviewer'])('a test admin key asking for a live %s key gets 403 forbidden and no key is created', async (role) => {
    const before = await liveKeys();
    const res = await acct.test.post('/v1/api-keys', { name: 'escalate', role, mode: 'live' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden' });
    expect(res.text).not.toMatch(/gc_live_/);
    expect(await liveKeys()).toBe(before);
  });

  test('a live admin key asking for a test key gets 403 forbidden', async () => {
    const res = await acct.live!.post('/v1/api-keys', { name: 'down', role: 'admin', mode: 'test' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  test('a live admin key mints live keys; a test admin key mints test keys, with or without mode', async () => {
    const live = await acct.live!.post('/v1/api-keys', { name: 'live ci', role: 'reviewer', mode: 'live' });
    expect(live.status).toBe(201);
    expect(live.body.key).toMatch(/^gc_live_/);
    for (const body of [{ name: 't', role: 'reviewer' }, { name: 't', role: 'reviewer', mode: 'test' }]) {
      const res = await acct.test.post('/v1/api-keys', body);
      expect(res.status).toBe(201);
      expect(res.body.key).toMatch(/^gc_test_/);
    }
  });
});
