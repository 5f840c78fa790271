/**
 * DECISIONS §19 across real processes: `spend-auth serve --workers 2` on PostgreSQL, each worker
 * with its own caches. One signed authorize sent 8 times at once over 8 connections (both workers
 * answer some) is decided exactly once: step 9's nonce claim is one unique insert in the shared
 * database. A key revoked through the API is then refused on whichever worker answers, the other
 * one's cache included. Which worker answered: the X-Request-Id of the answer, matched with the
 * pid of the worker's request log line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, policyBody } from '../support/context.js';
import { TEST_SERVER_KEYS_ENV } from '../support/server-keys.js';
import { freePort } from '../support/dev-server.js';
import { until } from '../support/wait.js';
import { newAgentKey, send, sendSigned, signWebBotAuth, spendOf } from '../support/agent-signing.js';
import { generatePrivateJwk } from '../../src/tokens/signing-keys.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const sharedUrl = process.env.DATABASE_URL;

let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let primary: ChildProcess | undefined;
let base: string;
let admin: string;
/** request_id → pid of the worker that logged it. */
const answeredBy = new Map<string, number>();

/** The pids of the workers that answered `answers` (their log lines may trail the answers a little). */
const workersOf = (answers: { headers: Headers }[]) =>
  until('the answering workers\' log lines', () => {
    const pids = answers.map((a) => answeredBy.get(a.headers.get('x-request-id') ?? ''));
    return pids.every((p) => p !== undefined) ? new Set(pids as number[]) : undefined;
  }, 10_000);

/** An admin-keyed JSON call (fetch: which worker answers does not matter here). */
async function call(method: string, p: string, body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${admin}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  if (!sharedUrl || process.platform !== 'linux') return;
  // Migrated, with the test keys bound: what `spend-auth migrate` with these keys leaves.
  scratch = await createScratchDatabase(sharedUrl, { migrated: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: scratch.url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-sig-workers-')),
    TOKEN_SIGNING_KEY: JSON.stringify(await generatePrivateJwk()),
    ...TEST_SERVER_KEYS_ENV,
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    LOG_LEVEL: 'error',
  };
  // The signature covers @authority: the Host the test connects with, not a configured one.
  delete env.PUBLIC_BASE_URL;
  const created = JSON.parse(
    execFileSync(process.execPath, [BIN, 'accounts', 'create', '--name', 'signers', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' }),
  ) as { keys: { test: string } };
  admin = created.keys.test;

  const port = await freePort();
  primary = spawn(process.execPath, [BIN, 'serve', '--workers', '2'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const listening = new Set<number>();
  let pending = '';
  primary.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      try {
        const entry = JSON.parse(line) as { msg?: string; pid?: number; request_id?: string };
        if (entry.msg === 'API listening' && entry.pid) listening.add(entry.pid);
        if (entry.msg === 'request' && entry.request_id && entry.pid) answeredBy.set(entry.request_id, entry.pid);
      } catch {
        // not a log line
      }
    }
  });
  base = `http://127.0.0.1:${port}`;
  await until('both workers listening', () => (listening.size === 2 ? true : undefined), 180_000);
}, 240_000);

afterAll(async () => {
  if (primary && primary.exitCode === null && primary.signalCode === null) {
    const exited = new Promise((resolve) => primary!.once('exit', resolve));
    primary.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
  }
  await scratch?.drop();
}, 60_000);

describe.skipIf(!sharedUrl || process.platform !== 'linux')('signed requests across serve --workers 2', () => {
  it('one signed authorize sent 8 times at once is decided once; a revoked key is refused by both workers', async () => {
    const policy = await call('POST', '/v1/policies', policyBody({ budget_monthly: 100_000_000, budget_single_max: 1_000_000 }));
    expect(policy.status).toBe(201);
    const agent = await call('POST', '/v1/agents', { name: 'signer', policy_id: policy.body.id });
    expect(agent.status).toBe(201);
    const agentId: string = agent.body.id;
    const apiKey = await call('POST', '/v1/api-keys', { name: 'signer', role: 'agent', agent_id: agentId });
    expect(apiKey.status).toBe(201);
    const bearer: string = apiKey.body.key;
    const ed = await newAgentKey('ed25519');
    const registered = await call('POST', `/v1/agents/${agentId}/keys`, { jwk: ed.publicJwk, name: 'ed' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body.thumbprint).toBe(ed.thumbprint);

    // Both workers verify a signature (and so hold the key in their caches) before the race.
    const primed = await Promise.all(
      Array.from({ length: 4 }, () => sendSigned(base, bearer, { method: 'GET', path: '/v1/api-keys/self' }, (u) => signWebBotAuth(u, ed))),
    );
    expect(primed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await workersOf(primed)).size).toBe(2);

    // ONE signature (@method @authority @path content-digest, tag web-bot-auth, a nonce), the same bytes 8 times.
    const body = Buffer.from(JSON.stringify(spendOf(agentId)));
    const headers = await signWebBotAuth({ method: 'POST', url: `${base}/v1/authorize`, headers: { 'content-type': 'application/json' }, body }, ed);
    expect(headers['signature-input']).toMatch(/^[^=]+=\("@method" "@authority" "@path" "content-digest"\);.*tag="web-bot-auth"/);
    expect(headers['signature-input']).toMatch(/;nonce="/);
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(base, bearer, { method: 'POST', path: '/v1/authorize', headers, body })));
    const outcomes = answers.map((r) => (r.status === 200 ? 'ok' : `${r.status} ${r.body?.error?.code}`)).sort();
    expect(outcomes).toEqual(['401 signature_replayed', '401 signature_replayed', '401 signature_replayed', '401 signature_replayed', '401 signature_replayed', '401 signature_replayed', '401 signature_replayed', 'ok']);
    expect((await workersOf(answers)).size).toBe(2);

    const decided: string = answers.find((r) => r.status === 200)!.body.decision_id;
    const audit = await call('GET', `/v1/audit-logs?agent_id=${agentId}&type=authorization.decision`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((r: { decision_id: string }) => r.decision_id)).toEqual([decided]);
    const db = new pg.Client({ connectionString: scratch!.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM decisions WHERE agent_id = $1', [agentId]);
      expect(rows.map((r) => r.id)).toEqual([decided]);
    } finally {
      await db.end();
    }

    // Revoked through one worker; the other still has the key cached. Each request freshly signed, on a new connection.
    const revoked = await call('DELETE', `/v1/agents/${agentId}/keys/${registered.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    const after = await Promise.all(
      Array.from({ length: 6 }, () => sendSigned(base, bearer, { method: 'POST', path: '/v1/authorize', body: spendOf(agentId) }, (u) => signWebBotAuth(u, ed))),
    );
    expect(after.map((r) => `${r.status} ${r.body?.error?.code}`)).toEqual(Array(6).fill('401 signature_key_unknown'));
    expect((await workersOf(after)).size).toBe(2);
  }, 240_000);
});
