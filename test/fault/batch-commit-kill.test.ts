import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.js';
import { IDEMPOTENCY_STALE_CLAIM_MS } from '../../src/idempotency/idempotency.repository.js';
import { budgetAgents, expectSpendWithinBudget, useKillableServe } from '../support/killable-serve.js';
import { freePort, startServe } from '../support/serve-process.js';

const url = process.env.DATABASE_URL;
if (!url) console.log('[fault] batch-commit-kill skipped: needs DATABASE_URL (a server another process can share)');

const AGENTS = 10;
const WORKERS = 32;
const BUDGET = 3_000; // 30 approvals of 100 per agent
const AMOUNT = 100;
/** The failpoint: the process kills itself right after its 3rd multi-request batch committed. */
const KILL_AFTER_BATCHES = 3;

/** One request the client sent, and what (if anything) it heard back. */
interface Sent {
  key: string;
  body: string;
  status?: number;
  text?: string;
  replayed?: string | null;
  /** The connection died under it (or the process was already gone). */
  failed?: boolean;
}

describe.skipIf(!url)('kill -9 between a batch commit and its answers (group commit)', () => {
  const stack = useKillableServe(url);

  test("a kill between a batch's commit and its answers: every committed decision is answerable by its Idempotency-Key", async () => {
    const { database } = stack;
    const { keys, account } = await createAccount(database.db, { name: 'batch-kill', plan: 'enterprise', rateLimit: 1_000_000 });
    const apiKey = keys.live!;
    const h = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const port = freePort();
    stack.serve = await startServe(url!, port, { FAILPOINT_KILL_AFTER_BATCH_COMMIT: String(KILL_AFTER_BATCHES), AUTHORIZE_BATCH_SIZE: '64' });
    const killed = stack.serve.child;
    const exited = new Promise<void>((resolve) => {
      if (killed.exitCode !== null || killed.signalCode !== null) resolve();
      else killed.once('exit', () => resolve());
    });

    const agents = await budgetAgents(stack.serve.base, h, AGENTS, BUDGET);

    // 1. Load until the process kills itself: every request has a key of its own.
    const run = randomUUID().slice(0, 8);
    const sent: Sent[] = [];
    let dead = false;
    void exited.then(() => (dead = true));
    const worker = async (w: number) => {
      for (let n = 0; !dead; n++) {
        const req: Sent = {
          key: `bck-${run}-${w}-${n}`,
          body: JSON.stringify({ agent_id: agents[Math.floor(Math.random() * AGENTS)], amount: AMOUNT, currency: 'USD', vendor: 'v.example' }),
        };
        sent.push(req);
        try {
          const res = await fetch(`${stack.serve!.base}/v1/authorize`, { method: 'POST', headers: { ...h, 'idempotency-key': req.key }, body: req.body });
          const text = await res.text();
          Object.assign(req, { status: res.status, text, replayed: res.headers.get('idempotent-replayed') });
        } catch {
          req.failed = true; // the process died under this request
          return; // and is gone: this worker stops, rather than knock on a closed port until its exit is seen
        }
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 30_000))]);
    dead = true;
    await load;
    expect(timedOut, 'the failpoint never fired: the load did not make three multi-request batches').toBe(false);
    expect(killed.signalCode).toBe('SIGKILL');
    expect(killed.exitCode).toBeNull();
    // Every answer the client did get was a first answer, a decision.
    for (const r of sent) if (r.status !== undefined) expect([r.status, r.replayed]).toEqual([200, null]);

    // 2. The same database, without the failpoint.
    stack.serve = await startServe(url!, port);

    // 3. Every committed decision of a key sent, once per key.
    const sentKeys = sent.map((r) => r.key);
    const committedRows = await database.db
      .selectFrom('decisions')
      .select(['id', 'idempotency_key'])
      .where('account_id', '=', account.id)
      .where(sql<boolean>`idempotency_key = any(${sentKeys}::text[])`)
      .execute();
    const committed = new Map<string, string>();
    for (const d of committedRows) {
      expect(committed.has(d.idempotency_key!), `two decisions for key ${d.idempotency_key}`).toBe(false);
      committed.set(d.idempotency_key!, d.id);
    }
    const answered = sent.filter((r) => r.status === 200);
    for (const r of answered) expect(committed.get(r.key), `answered ${r.key} without a committed decision`).toBe(JSON.parse(r.text!).decision_id);
    const unanswered = sent.filter((r) => committed.has(r.key) && r.status === undefined);
    const notCommitted = sent.filter((r) => !committed.has(r.key));
    console.log(`[fault] batch-commit-kill: sent ${sent.length}, committed ${committed.size}, answered ${answered.length}, committed-but-unanswered ${unanswered.length}, not committed ${notCommitted.length}`);
    // The killed batch: committed, and the client never heard of it.
    expect(unanswered.length).toBeGreaterThan(0);

    const retry = async (r: Sent) => {
      const res = await fetch(`${stack.serve!.base}/v1/authorize`, { method: 'POST', headers: { ...h, 'idempotency-key': r.key }, body: r.body });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
    };

    // Each committed decision replays under its key, byte for byte what the client saw (if it saw it).
    for (const r of sent.filter((s) => committed.has(s.key))) {
      const again = await retry(r);
      expect(again.status, again.text).toBe(200);
      expect(again.replayed).toBe('true');
      expect(JSON.parse(again.text).decision_id).toBe(committed.get(r.key));
      if (r.status !== undefined) expect(again.text).toBe(r.text);
    }

    // 4. What was not committed was not half-written: no decision, no stored response. Its claim
    // (idempotency_keys row) may have survived 'in_progress': claimKey commits the claim by its own
    // statement before the batch runs, and only the batch's transaction completes it, so a request
    // killed between the two leaves a committed claim without a decision. Such a claim holds its key
    // ("still being processed", 409) until it is stale (IDEMPOTENCY_STALE_CLAIM_MS, a minute), then
    // is taken over (idempotency.repository.ts, claimKey). The test ages those claims past the
    // minute, as test/api/idempotency-and-concurrency.test.ts's `ageClaim` does, instead of waiting.
    const claims = await database.db
      .selectFrom('idempotency_keys')
      .select(['key', 'status', 'response_status'])
      .where('account_id', '=', account.id)
      .where(sql<boolean>`key = any(${notCommitted.map((r) => r.key)}::text[])`)
      .execute();
    for (const c of claims) expect(c, `a stored answer for ${c.key} without its decision`).toMatchObject({ status: 'in_progress', response_status: null });
    const stuck = new Set(claims.map((c) => c.key));
    if (stuck.size > 0) {
      const one = notCommitted.find((r) => stuck.has(r.key))!;
      const busy = await retry(one);
      expect(busy.status, busy.text).toBe(409);
      expect(JSON.parse(busy.text).error.message).toContain('still being processed');
      await database.db
        .updateTable('idempotency_keys')
        .set({ created_at: new Date(Date.now() - IDEMPOTENCY_STALE_CLAIM_MS - 1_000) })
        .where('account_id', '=', account.id)
        .where(sql<boolean>`key = any(${[...stuck]}::text[])`)
        .execute();
    }
    console.log(`[fault] batch-commit-kill: claims left in_progress without a decision ${stuck.size}`);
    for (const r of notCommitted) {
      const now = await retry(r);
      expect(now.status, `${r.key}: ${now.text}`).toBe(200);
      expect(now.replayed).toBeNull();
      const decisionId = JSON.parse(now.text).decision_id;
      expect(decisionId).toMatch(/^dec_/);
      committed.set(r.key, decisionId);
    }
    // Now every key sent has exactly one decision.
    const all = await database.db
      .selectFrom('decisions')
      .select(['id', 'idempotency_key'])
      .where('account_id', '=', account.id)
      .where(sql<boolean>`idempotency_key = any(${sentKeys}::text[])`)
      .execute();
    expect(all).toHaveLength(sent.length);
    for (const d of all) expect(committed.get(d.idempotency_key!)).toBe(d.id);

    // 5. One audit record per decision; no agent over budget; the chain verifies.
    const ids = [...committed.values()];
    const audited = await database.db
      .selectFrom('audit_records')
      .select('decision_id')
      .where('type', '=', 'authorization.decision')
      .where(sql<boolean>`decision_id = any(${ids}::text[])`)
      .execute();
    expect(audited).toHaveLength(ids.length);
    expect(new Set(audited.map((a) => a.decision_id)).size).toBe(ids.length);

    await expectSpendWithinBudget(database, account.id, AGENTS, BUDGET);

    let verify: { valid: boolean; records: number; decisions_without_record: number } | undefined;
    for (const deadline = Date.now() + 10_000; ; ) {
      verify = await (await fetch(`${stack.serve.base}/v1/audit-logs/verify`, { headers: h })).json();
      if ((verify!.valid && verify!.records >= ids.length) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(verify).toMatchObject({ valid: true, decisions_without_record: 0 });
    expect(verify!.records).toBeGreaterThanOrEqual(ids.length);
  }, 180_000);
});
