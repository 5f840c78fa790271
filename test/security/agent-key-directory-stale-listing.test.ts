/**
 * Attack: a key directory that never answers again. A key published in a directory verifies while
 * the directory lists it, and a failed refetch keeps the last listing, so a key the operator
 * withdrew (say, after a leak) by taking the directory down verified forever. DECISIONS §19: the
 * last good listing holds for at most 24 h after its last good fetch; then the directory's keys stop
 * verifying (`signature_key_unknown`) until a fetch succeeds. Real TLS (a private CA) on loopback;
 * signed with Cloudflare's `web-bot-auth` 0.1.3 over a `Signature-Agent` naming the directory.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { refreshDueDirectories } from '../../src/agent-keys/directory-refresher.js';
import { createTestContext, agentWithPolicy, type TestAccount, type TestContext } from '../support/context.js';
import { newAgentKey, sendSigned, signWebBotAuth, spendOf, type TestAgentKey } from '../support/agent-signing.js';
import { directoryEntry, startKeyDirectoryServer, type KeyDirectoryServer } from '../support/key-directory-server.js';
import { hasOpenssl, makeTestCerts, type TestCerts } from '../support/tls-certs.js';

const HOUR = 3_600_000;
let clock = Date.now();
let certs: TestCerts;
let ctx: TestContext;
let acct: TestAccount;
let dir: KeyDirectoryServer;
let agentId: string;
let bearer: string;
let key: TestAgentKey;

describe.skipIf(!hasOpenssl())('a directory that stops answering', () => {
  beforeAll(async () => {
    certs = makeTestCerts();
    // Its own database on PostgreSQL: the refresher claims every due directory it can see.
    ctx = await createTestContext({ allowPrivateUrls: true, keyDirectories: { ca: certs.ca }, ownDatabase: true, testModeRateLimit: 10_000, now: () => new Date(clock) });
    acct = await ctx.account('growth');
    ({ agentId } = await agentWithPolicy(acct.test, { budget_monthly: 100_000_000, budget_single_max: 1_000_000 }));
    bearer = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body.key;
    dir = await startKeyDirectoryServer(certs);
    key = await newAgentKey('ed25519');
    dir.list([await directoryEntry(key.publicJwk as Record<string, unknown>)]);
    const res = await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk: key.publicJwk, directory_url: dir.origin });
    expect(res.status, res.text).toBe(201);
  });
  afterAll(async () => {
    await dir?.close();
    await ctx?.close();
    certs?.remove();
  });

  const settings = () => ({ allowPrivateUrls: true, ca: certs.ca });
  const authorizeSigned = () =>
    sendSigned(ctx.baseUrl, bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agentId), headers: { 'signature-agent': `sig1="${dir.origin}"` } }, (u) =>
      signWebBotAuth(u, key, { created: Math.floor(clock / 1000) }),
    );
  const fetchedAt = async () => (await ctx.database.db.selectFrom('agent_key_directories').select('fetched_at').where('origin', '=', dir.origin).executeTakeFirstOrThrow()).fetched_at.getTime();

  test('the key verifies while listed; with every refetch failing it keeps verifying for 24 h, then stops; a good fetch restores it', async () => {
    const first = await authorizeSigned();
    expect(first.status, first.text).toBe(200);
    const lastGood = await fetchedAt();
    dir.answer = (_req, res) => void res.writeHead(503).end();

    // 23 h of failed refetches: the last listing still holds.
    clock = lastGood + 23 * HOUR;
    expect((await refreshDueDirectories(ctx.database.db, settings(), { now: new Date(clock) })).failed).toBe(1);
    const within = await authorizeSigned();
    expect(within.status, within.text).toBe(200);

    // Past 24 h since the last good fetch: the directory's keys no longer verify.
    clock = lastGood + 24 * HOUR + 1_000;
    expect((await refreshDueDirectories(ctx.database.db, settings(), { now: new Date(clock) })).failed).toBe(1);
    const stale = await authorizeSigned();
    expect(stale.status, stale.text).toBe(401);
    expect(stale.body.error.code).toBe('signature_key_unknown');
    expect(await fetchedAt()).toBe(lastGood);

    // The directory answers again, still listing the key: it verifies at once.
    dir.list([await directoryEntry(key.publicJwk as Record<string, unknown>)]);
    clock += 60_000;
    expect((await refreshDueDirectories(ctx.database.db, settings(), { now: new Date(clock) })).refreshed).toBe(1);
    const back = await authorizeSigned();
    expect(back.status, back.text).toBe(200);
  });
});
