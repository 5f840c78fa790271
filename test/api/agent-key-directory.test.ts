/**
 * Keys tied to a key directory (DECISIONS §19): at creation the origin's directory is fetched over
 * real TLS (a private CA, test/support/tls-certs.ts) and must list the key; its listing is stored
 * per account, mode and origin, and refetched when its max-age (clamped 60 s – 24 h, default 1 h)
 * runs out, a failed refetch keeping the last listing. Private addresses are allowed here
 * (WEBHOOK_ALLOW_PRIVATE_URLS), as the directory runs on 127.0.0.1; the address rules are in
 * test/security/agent-key-directory-ssrf.test.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH, type KeyDirectoryFetchSettings } from '../../src/agent-keys/agent-key-deps.js';
import { refreshDueDirectories } from '../../src/agent-keys/directory-refresher.js';
import { claimDueDirectories, recordDirectoryListing } from '../../src/agent-keys/key-directory.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { directoryEntry, startKeyDirectoryServer, type KeyDirectoryServer } from '../support/key-directory-server.js';
import { hasOpenssl, makeTestCerts, type TestCerts } from '../support/tls-certs.js';

const jwkOf = (type: 'ed25519' | 'ec') =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')).publicKey.export({ format: 'jwk' }) as Record<string, string>;

let certs: TestCerts;
let ctx: TestContext;
let acct: TestAccount;
let policyId: string;
let dir: KeyDirectoryServer;
let settings: KeyDirectoryFetchSettings;

const newAgent = async (client = acct.test, policy = policyId) => (await client.post('/v1/agents', { name: 'signer', policy_id: policy })).body.id as string;
const directoryRow = (origin: string, accountId = acct.id) =>
  ctx.database.db.selectFrom('agent_key_directories').selectAll().where('origin', '=', origin).where('account_id', '=', accountId).executeTakeFirstOrThrow();
const seconds = (row: { fetched_at: Date; expires_at: Date }) => (row.expires_at.getTime() - row.fetched_at.getTime()) / 1000;

describe.skipIf(!hasOpenssl())('key directories', () => {
  beforeAll(async () => {
    certs = makeTestCerts();
    settings = { allowPrivateUrls: true, ca: certs.ca };
    // Its own database on PostgreSQL: the refresher claims every due directory it can see.
    ctx = await createTestContext({ allowPrivateUrls: true, keyDirectories: { ca: certs.ca }, ownDatabase: true, testModeRateLimit: 1000 });
    acct = await ctx.account('growth');
    policyId = (await acct.test.post('/v1/policies', policyBody())).body.id;
  });
  afterAll(async () => {
    await ctx?.close();
    certs?.remove();
  });
  beforeEach(async () => {
    dir = await startKeyDirectoryServer(certs);
    return () => dir.close();
  });

  describe('at creation', () => {
    test('a directory that lists the key → 201 with directory_url; it was asked for its media type at the well-known path', async () => {
      const jwk = jwkOf('ed25519');
      dir.list([await directoryEntry(jwk)]);
      const res = await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: dir.origin });
      expect(res.status, res.text).toBe(201);
      expect(res.body.directory_url).toBe(dir.origin);
      expect(dir.requests).toEqual([{ path: DIRECTORY_PATH, accept: DIRECTORY_MEDIA_TYPE, host: `127.0.0.1:${dir.port}` }]);
      const row = await directoryRow(dir.origin);
      expect(row.thumbprints).toEqual([res.body.thumbprint]);
      expect(row.last_error).toBeNull();
      expect(row.livemode).toBe(false);
      // The key object shows the directory on every read.
      const listed = (await acct.test.get(`/v1/agents/${res.body.agent_id}/keys`)).body.data[0];
      expect(listed.directory_url).toBe(dir.origin);
    });

    test('a trailing / is accepted and stored as the origin; a media type parameter is ignored', async () => {
      const jwk = jwkOf('ec');
      dir.list([await directoryEntry(jwk)], { 'content-type': `${DIRECTORY_MEDIA_TYPE}; charset=utf-8` });
      const res = await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: `HTTPS://127.0.0.1:${dir.port}/` });
      expect(res.status, res.text).toBe(201);
      expect(res.body.directory_url).toBe(dir.origin);
    });

    test('the key among entries that are skipped (no kid, another kid, other kinds of keys, not objects) → 201', async () => {
      const jwk = jwkOf('ed25519');
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
      dir.list([jwkOf('ed25519'), { ...jwkOf('ed25519'), kid: 'laptop' }, await directoryEntry(rsa as Record<string, unknown>), 'x', null, 7, await directoryEntry(jwk)]);
      const res = await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: dir.origin });
      expect(res.status, res.text).toBe(201);
      expect((await directoryRow(dir.origin)).thumbprints).toEqual([res.body.thumbprint]);
    });

    test.each([
      ['without a kid', async (jwk: Record<string, string>) => jwk],
      ['with a kid that is not its thumbprint', async (jwk: Record<string, string>) => ({ ...jwk, kid: 'key-2024' })],
      ['not at all (another key only)', async () => directoryEntry(jwkOf('ed25519'))],
    ])('a directory listing the key %s → 400 directory_url, nothing stored', async (_name, entry) => {
      const jwk = jwkOf('ed25519');
      dir.list([await entry(jwk)]);
      const agent = await newAgent();
      const res = await acct.test.post(`/v1/agents/${agent}/keys`, { jwk, directory_url: dir.origin });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'directory_url' });
      expect(res.body.error.message).toMatch(/does not list this key/);
      expect(await ctx.database.db.selectFrom('agent_keys').select('id').where('agent_id', '=', agent).execute()).toHaveLength(0);
      expect(await ctx.database.db.selectFrom('agent_key_directories').select('id').where('origin', '=', dir.origin).execute()).toHaveLength(0);
    });

    test('nothing is fetched for a key that is refused anyway (a deactivated agent, a bad jwk)', async () => {
      const jwk = jwkOf('ed25519');
      dir.list([await directoryEntry(jwk)]);
      const gone = await newAgent();
      await acct.test.delete(`/v1/agents/${gone}`);
      expect((await acct.test.post(`/v1/agents/${gone}/keys`, { jwk, directory_url: dir.origin })).status).toBe(409);
      expect((await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk: { ...jwk, kid: 'x' }, directory_url: dir.origin })).status).toBe(400);
      expect(dir.requests).toHaveLength(0);
    });

    test.each([
      ['max-age=5 is clamped to 60 s', 'max-age=5', 60],
      ['max-age=1000000 is clamped to 24 h', 'public, max-age=1000000', 86_400],
      ['max-age=600 is kept', 'max-age=600, must-revalidate', 600],
      ['s-maxage alone is not max-age: 1 h', 's-maxage=600', 3_600],
      ['no Cache-Control: 1 h', undefined, 3_600],
    ])('%s', async (_name, cacheControl, expected) => {
      const jwk = jwkOf('ed25519');
      dir.list([await directoryEntry(jwk)], cacheControl ? { 'cache-control': cacheControl } : {});
      expect((await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: dir.origin })).status).toBe(201);
      expect(seconds(await directoryRow(dir.origin))).toBe(expected);
    });

    test('one listing per account, mode and origin: a second key refreshes the same row; another account gets its own', async () => {
      const [a, b] = [jwkOf('ed25519'), jwkOf('ec')];
      dir.list([await directoryEntry(a)]);
      const first = await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk: a, directory_url: dir.origin });
      dir.list([await directoryEntry(a), await directoryEntry(b)]);
      const second = await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk: b, directory_url: dir.origin });
      expect([first.status, second.status]).toEqual([201, 201]);
      const rows = await ctx.database.db.selectFrom('agent_key_directories').selectAll().where('origin', '=', dir.origin).execute();
      expect(rows).toHaveLength(1);
      expect([...rows[0]!.thumbprints].sort()).toEqual([first.body.thumbprint, second.body.thumbprint].sort());
      const keyRows = await ctx.database.db.selectFrom('agent_keys').select('directory_id').where('id', 'in', [first.body.id, second.body.id]).execute();
      expect(keyRows.map((k) => k.directory_id)).toEqual([rows[0]!.id, rows[0]!.id]);

      const other = await ctx.account('growth');
      const otherPolicy = (await other.test.post('/v1/policies', policyBody())).body.id;
      expect((await other.test.post(`/v1/agents/${await newAgent(other.test, otherPolicy)}/keys`, { jwk: a, directory_url: dir.origin })).status).toBe(201);
      expect(await ctx.database.db.selectFrom('agent_key_directories').select('id').where('origin', '=', dir.origin).execute()).toHaveLength(2);
    });
  });

  describe('the refresher', () => {
    /** A key tied to `dir`, whose listing then runs out. */
    async function keyWithDirectory(maxAge = 60) {
      const jwk = jwkOf('ed25519');
      dir.list([await directoryEntry(jwk)], { 'cache-control': `max-age=${maxAge}` });
      const key = (await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: dir.origin })).body;
      const row = await directoryRow(dir.origin);
      return { jwk, key, row, due: new Date(row.expires_at.getTime() + 1) };
    }

    test('nothing is fetched before max-age runs out', async () => {
      const { row } = await keyWithDirectory(600);
      dir.requests.length = 0;
      await refreshDueDirectories(ctx.database.db, settings, { now: new Date(row.expires_at.getTime() - 1000) });
      expect(dir.requests).toHaveLength(0);
    });

    test('past max-age the listing is fetched again: a key the directory dropped is no longer listed, a new max-age applies', async () => {
      const { key, due } = await keyWithDirectory();
      const newcomer = await directoryEntry(jwkOf('ec'));
      dir.list([newcomer], { 'cache-control': 'max-age=7200' });
      dir.requests.length = 0;
      await refreshDueDirectories(ctx.database.db, settings, { now: due });
      expect(dir.requests).toHaveLength(1);
      const row = await directoryRow(dir.origin);
      expect(row.thumbprints).toEqual([newcomer.kid]);
      expect(row.thumbprints).not.toContain(key.thumbprint);
      expect(seconds(row)).toBe(7_200);
      expect(row.last_error).toBeNull();
    });

    test('a failed refetch keeps the last listing, notes the rule it broke, and is tried again a minute later', async () => {
      const { key, due } = await keyWithDirectory();
      dir.answer = (_req, res) => void res.writeHead(503).end();
      const round = await refreshDueDirectories(ctx.database.db, settings, { now: due });
      expect(round.failed).toBeGreaterThanOrEqual(1);
      const row = await directoryRow(dir.origin);
      expect(row.thumbprints).toEqual([key.thumbprint]);
      expect(row.last_error).toMatch(/must answer 200 \(it answered 503\)/);
      expect(row.expires_at.getTime()).toBe(due.getTime() + 60_000);
      expect(row.last_attempt_at?.getTime()).toBe(due.getTime());
      // A minute later it is due again, and a good answer replaces the listing.
      dir.list([], { 'cache-control': 'max-age=60' });
      dir.requests.length = 0;
      await refreshDueDirectories(ctx.database.db, settings, { now: new Date(due.getTime() + 59_000) });
      expect(dir.requests).toHaveLength(0);
      await refreshDueDirectories(ctx.database.db, settings, { now: new Date(due.getTime() + 60_000) });
      expect(dir.requests).toHaveLength(1);
      expect((await directoryRow(dir.origin)).thumbprints).toEqual([]);
    });

    test('an unreachable directory (no listener any more) keeps its listing too', async () => {
      const { key, due } = await keyWithDirectory();
      await dir.close();
      await refreshDueDirectories(ctx.database.db, settings, { now: due });
      const row = await directoryRow(dir.origin);
      expect(row.thumbprints).toEqual([key.thumbprint]);
      expect(row.last_error).toMatch(/could not be fetched \(ECONNREFUSED\)/);
      expect(row.last_error).not.toContain('127.0.0.1');
    });

    test('a directory none of whose keys is active any more is not fetched', async () => {
      const { key, due } = await keyWithDirectory();
      await acct.test.delete(`/v1/agents/${key.agent_id}/keys/${key.id}`);
      dir.requests.length = 0;
      await refreshDueDirectories(ctx.database.db, settings, { now: due });
      expect(dir.requests).toHaveLength(0);
    });

    test('two refreshers at once fetch a due directory once (claimed, the other skips it)', async () => {
      const { due } = await keyWithDirectory();
      dir.requests.length = 0;
      await Promise.all([refreshDueDirectories(ctx.database.db, settings, { now: due }), refreshDueDirectories(ctx.database.db, settings, { now: due })]);
      expect(dir.requests).toHaveLength(1);
    });

    test('a listing fetched by a creation after the claim is not overwritten by the older refetch', async () => {
      const { due } = await keyWithDirectory();
      const claimed = (await claimDueDirectories(ctx.database.db, due, 100, 60_000)).find((d) => d.origin === dir.origin)!;
      // Meanwhile a new key of the same directory fetches it afresh.
      const jwk = jwkOf('ed25519');
      const fresh = await directoryEntry(jwk);
      dir.list([fresh]);
      expect((await acct.test.post(`/v1/agents/${await newAgent()}/keys`, { jwk, directory_url: dir.origin })).status).toBe(201);
      await recordDirectoryListing(ctx.database.db, claimed, { thumbprints: [], maxAgeSeconds: 60 }, due);
      expect((await directoryRow(dir.origin)).thumbprints).toEqual([fresh.kid]);
    });
  });
});
