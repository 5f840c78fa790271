/**
 * The usage-report activities against the real database and a real HTTP billing meter
 * (http.createServer on 127.0.0.1). Temporal's retries are played by calling the activity again,
 * as the engine would after each retryable failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createUsageReportActivities } from '../../activities/usage-report.js';
import { createUsageReporter, METER_ATTEMPT_TIMEOUT_MS, retryAfterMs, type UsageLogger } from '../../src/usage/usage-report.service.js';
import { monthEnd, monthOf } from '../../src/usage/month.js';
import { countUnsettledReports, listAccountsToReport, readReport, recordAttempt, unsettledMonthsBefore } from '../../src/usage/usage-reports.repository.js';
import { runUsageReport } from '../../src/usage/usage-report.runner.js';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

interface MeterRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A billing meter on 127.0.0.1 that answers with the scripted statuses in order, then 202. */
async function startMeter(script: Array<number | { status: number; headers?: Record<string, string> } | 'hang'> = []) {
  const requests: MeterRequest[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined });
      const step = script.shift() ?? 202;
      if (step === 'hang') {
        hanging.push(res);
        return;
      }
      const { status, headers } = typeof step === 'number' ? { status: step, headers: {} } : step;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(status < 300 ? { id: `mtr_${requests.length}`, status: 'accepted' } : { error: 'scripted' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/meter-events`;
  meters.push({ close: () => new Promise<void>((r) => { for (const res of hanging) res.destroy(); server.closeAllConnections(); server.close(() => r()); }) });
  return { url, requests };
}
const meters: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(meters.splice(0).map((m) => m.close()));
});

/** Log lines the activities write, recorded (a recording stand-in for pino). */
function recordingLog() {
  const lines: Array<{ level: 'info' | 'warn'; obj: object; msg: string }> = [];
  const log: UsageLogger = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
  };
  return { log, lines };
}

/** The month this test runs in; the activities are given a clock just after it ends, so it is reportable. */
const MONTH = monthOf(new Date());
const afterMonth = () => new Date(monthEnd(MONTH).getTime() + 5 * 60_000);

/** A live account with `n` real authorizations (so `n` checks this month). */
async function accountWithChecks(n: number): Promise<string> {
  const acct = await ctx.account('growth');
  const live = acct.live!;
  const policy = await live.post('/v1/policies', policyBody({ budget_monthly: 10_000_000 }));
  const agent = await live.post('/v1/agents', { name: 'buyer', policy_id: policy.body.id });
  for (let i = 0; i < n; i += 1) {
    const res = await live.post('/v1/authorize', { agent_id: agent.body.id, amount: 100, currency: 'USD', vendor: 'openai.com' });
    expect(res.status).toBe(200);
  }
  return acct.id;
}

const reportRow = (accountId: string, month = MONTH) =>
  ctx.database.db.selectFrom('usage_reports').selectAll().where('account_id', '=', accountId).where('month', '=', month).executeTakeFirst();

const activitiesFor = (meter: { url: string } | undefined, log?: UsageLogger) =>
  createUsageReportActivities({ db: ctx.database.db, billingMeter: { url: meter?.url, apiKey: 'mtr_secret_key' }, log, now: afterMonth });

/** The SDK logs every failed attempt; these tests expect failures, so only errors are shown. */
const quietEnvironment = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

/** Runs an activity as the worker would and returns its failure (or undefined when it succeeded). */
async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
}

describe('reportAccountUsage against a real HTTP meter', () => {
  test('a meter that fails twice and then accepts: one accepted report, the same idempotency key and body every time; a re-run posts nothing', async () => {
    const accountId = await accountWithChecks(3);
    const meter = await startMeter([503, 500]);
    const activities = activitiesFor(meter);
    const env = quietEnvironment();
    const input = { accountId, month: MONTH };

    const first = await failureOf(env.run(activities.reportAccountUsage, input));
    const second = await failureOf(env.run(activities.reportAccountUsage, input));
    for (const f of [first, second]) expect(f).toMatchObject({ type: 'BillingMeterUnavailable', nonRetryable: false });
    expect(await reportRow(accountId)).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 500, quantity: 3 });

    const result = await env.run(activities.reportAccountUsage, input);
    expect(result).toEqual({ accountId, month: MONTH, quantity: 3, status: 'accepted', posted: true, idempotencyKey: `${accountId}:${MONTH}` });

    expect(meter.requests).toHaveLength(3);
    for (const r of meter.requests) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/v1/meter-events');
      expect(r.headers['idempotency-key']).toBe(`${accountId}:${MONTH}`);
      expect(r.headers.authorization).toBe('Bearer mtr_secret_key');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body).toEqual({ account_id: accountId, month: MONTH, quantity: 3, idempotency_key: `${accountId}:${MONTH}` });
    }
    const row = await reportRow(accountId);
    expect(row).toMatchObject({ status: 'accepted', quantity: 3, attempts: 3, last_status_code: 202, last_error: null, idempotency_key: `${accountId}:${MONTH}` });
    expect(row!.reported_at).toBeInstanceOf(Date);
    const reports = await ctx.database.db.selectFrom('usage_reports').select('status').where('account_id', '=', accountId).execute();
    expect(reports).toEqual([{ status: 'accepted' }]);

    // A re-run of the activity, and of the whole report, sends nothing.
    const again = await env.run(activities.reportAccountUsage, input);
    expect(again).toMatchObject({ status: 'accepted', posted: false, quantity: 3 });
    expect(await activities.listAccountsToReport(MONTH)).not.toContain(accountId);
    expect(meter.requests).toHaveLength(3);
    expect(await reportRow(accountId)).toMatchObject({ attempts: 3 });
  });

  test('checks counted after the first attempt do not change what later attempts send', async () => {
    const accountId = await accountWithChecks(2);
    const meter = await startMeter([502]);
    const activities = activitiesFor(meter);
    await failureOf(activities.reportAccountUsage({ accountId, month: MONTH }));
    await ctx.database.db.insertInto('usage_counters').values({ account_id: accountId, month: MONTH, shard: 7, checks: 40 }).onConflict((oc) => oc.doNothing()).execute();
    await activities.reportAccountUsage({ accountId, month: MONTH });
    expect(meter.requests.map((r) => r.body.quantity)).toEqual([2, 2]);
  });

  test('429 and 503 with Retry-After set the next retry delay; 408 is retried; a refused connection is retried', async () => {
    const accountId = await accountWithChecks(1);
    const meter = await startMeter([{ status: 429, headers: { 'retry-after': '7' } }, { status: 503, headers: { 'retry-after': '120' } }, 408]);
    const activities = activitiesFor(meter);
    const input = { accountId, month: MONTH };
    expect(await failureOf(activities.reportAccountUsage(input))).toMatchObject({ type: 'BillingMeterUnavailable', nonRetryable: false, nextRetryDelay: 7_000 });
    expect(await failureOf(activities.reportAccountUsage(input))).toMatchObject({ type: 'BillingMeterUnavailable', nonRetryable: false, nextRetryDelay: 120_000 });
    const timeout = await failureOf(activities.reportAccountUsage(input));
    expect(timeout).toMatchObject({ type: 'BillingMeterUnavailable', nonRetryable: false });
    expect(timeout!.nextRetryDelay).toBeUndefined();

    const unreachable = createUsageReportActivities({ db: ctx.database.db, billingMeter: { url: 'http://127.0.0.1:1/meter', apiKey: undefined }, now: afterMonth });
    const refused = await failureOf(unreachable.reportAccountUsage(input));
    expect(refused).toMatchObject({ type: 'BillingMeterUnavailable', nonRetryable: false });
    expect(await reportRow(accountId)).toMatchObject({ status: 'pending', attempts: 4, last_status_code: null, last_error: expect.stringContaining('unreachable') });
  });

  test('a 400 from the meter is a permanent failure, recorded as failed; a later run may report it', async () => {
    const accountId = await accountWithChecks(2);
    const { log, lines } = recordingLog();
    const meter = await startMeter([400]);
    const activities = activitiesFor(meter, log);
    const failure = await failureOf(activities.reportAccountUsage({ accountId, month: MONTH }));
    expect(failure).toMatchObject({ type: 'BillingMeterRejected', nonRetryable: true, message: 'billing meter answered HTTP 400' });
    expect(await reportRow(accountId)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 400, last_error: 'billing meter answered HTTP 400', reported_at: null });
    expect(lines).toEqual([{ level: 'warn', obj: expect.objectContaining({ account_id: accountId, status_code: 400 }), msg: 'billing meter refused the usage report' }]);

    // Not settled: an operator's re-run (after the meter is fixed) reports it, with the same key.
    expect(await activities.listAccountsToReport(MONTH)).toContain(accountId);
    expect(await activities.reportAccountUsage({ accountId, month: MONTH })).toMatchObject({ status: 'accepted', posted: true });
    expect(new Set(meter.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`${accountId}:${MONTH}`]));
  });

  test('without BILLING_METER_URL the report is recorded as skipped with one log line, and never sent later', async () => {
    const accountId = await accountWithChecks(2);
    const { log, lines } = recordingLog();
    const unconfigured = createUsageReportActivities({ db: ctx.database.db, billingMeter: { url: undefined, apiKey: undefined }, log, now: afterMonth });
    expect(await unconfigured.reportAccountUsage({ accountId, month: MONTH })).toMatchObject({ status: 'skipped', posted: false, quantity: 2 });
    expect(lines).toEqual([{ level: 'warn', obj: { account_id: accountId, month: MONTH, quantity: 2 }, msg: 'usage report skipped: BILLING_METER_URL is not set' }]);
    expect(await reportRow(accountId)).toMatchObject({ status: 'skipped', attempts: 0, last_error: 'BILLING_METER_URL is not set', reported_at: null });

    // Also with no deps at all: no crash.
    expect(await createUsageReportActivities({ db: ctx.database.db, now: afterMonth }).reportAccountUsage({ accountId, month: MONTH })).toMatchObject({ status: 'skipped' });

    const meter = await startMeter();
    expect(await activitiesFor(meter).reportAccountUsage({ accountId, month: MONTH })).toMatchObject({ status: 'skipped', posted: false });
    expect(meter.requests).toHaveLength(0);
  });

  test('a month that has not ended is never reported', async () => {
    const accountId = await accountWithChecks(1);
    const meter = await startMeter();
    const early = createUsageReportActivities({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: undefined }, now: () => new Date(monthEnd(MONTH).getTime() - 1) });
    expect(await failureOf(early.reportAccountUsage({ accountId, month: MONTH }))).toMatchObject({ type: 'MonthNotReportable', nonRetryable: true });
    expect(await failureOf(early.reportAccountUsage({ accountId, month: '2026-13' }))).toMatchObject({ type: 'MonthNotReportable', nonRetryable: true });
    expect(meter.requests).toHaveLength(0);
    expect(await reportRow(accountId)).toBeUndefined();
  });

  test('the attempt is aborted when the activity is cancelled (and would be after 10 s)', async () => {
    expect(METER_ATTEMPT_TIMEOUT_MS).toBe(10_000);
    const accountId = await accountWithChecks(1);
    const meter = await startMeter(['hang']);
    const env = quietEnvironment();
    const running = failureOf(env.run(activitiesFor(meter).reportAccountUsage, { accountId, month: MONTH }));
    while (meter.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    env.cancel();
    expect(await running).toMatchObject({ type: 'BillingMeterUnavailable' });
    expect(await reportRow(accountId)).toMatchObject({ status: 'pending', attempts: 1 });
  });
});

describe('listAccountsToReport', () => {
  test('lists accounts with live usage in the month that are not yet settled; never test mode', async () => {
    const withUsage = await accountWithChecks(1);
    const testOnly = await ctx.account('growth');
    const policy = await testOnly.test.post('/v1/policies', policyBody());
    const agent = await testOnly.test.post('/v1/agents', { name: 'x', policy_id: policy.body.id });
    expect((await testOnly.test.post('/v1/authorize', { agent_id: agent.body.id, amount: 100, currency: 'USD', vendor: 'openai.com' })).status).toBe(200);

    const activities = activitiesFor(await startMeter());
    const listed = await activities.listAccountsToReport(MONTH);
    expect(listed).toContain(withUsage);
    expect(listed).not.toContain(testOnly.id);
    expect([...listed].sort()).toEqual(listed);
    // Pages continue after the given id.
    expect(await activities.listAccountsToReport(MONTH, withUsage)).not.toContain(withUsage);
  });
});

describe('reports settled as accepted or skipped', () => {
  const MONTH_SETTLED = '2019-09';
  /** One account per report status, each with checks in the month. */
  async function accountsByStatus() {
    const statuses = ['pending', 'failed', 'accepted', 'skipped'] as const;
    const accounts = await Promise.all(statuses.map(() => ctx.account('growth')));
    await ctx.database.db.insertInto('usage_counters').values(accounts.map((a) => ({ account_id: a.id, month: MONTH_SETTLED, shard: 0, checks: 3 }))).execute();
    await ctx.database.db
      .insertInto('usage_reports')
      .values(
        accounts.map((a, i) => ({
          account_id: a.id,
          month: MONTH_SETTLED,
          quantity: 3,
          status: statuses[i]!,
          attempts: 1,
          last_status_code: null,
          last_error: null,
          idempotency_key: `${a.id}:${MONTH_SETTLED}`,
          created_at: new Date(),
          updated_at: new Date(),
          reported_at: null,
        })),
      )
      .execute();
    return Object.fromEntries(statuses.map((s, i) => [s, accounts[i]!.id])) as Record<(typeof statuses)[number], string>;
  }

  test('are not listed to report again; pending and failed ones are', async () => {
    const ids = await accountsByStatus();
    const listed = await listAccountsToReport(ctx.database.db, MONTH_SETTLED, 100_000);
    expect(listed).toContain(ids.pending);
    expect(listed).toContain(ids.failed);
    expect(listed).not.toContain(ids.accepted);
    expect(listed).not.toContain(ids.skipped);
  });

  test('are never changed by a later attempt; pending and failed ones are', async () => {
    const ids = await accountsByStatus();
    const now = new Date();
    for (const id of Object.values(ids)) {
      await recordAttempt(ctx.database.db, id, MONTH_SETTLED, { status: 'failed', attempted: true, statusCode: 500, lastError: 'late', now });
    }
    expect((await readReport(ctx.database.db, ids.accepted, MONTH_SETTLED))).toMatchObject({ status: 'accepted', attempts: 1, last_error: null });
    expect((await readReport(ctx.database.db, ids.skipped, MONTH_SETTLED))).toMatchObject({ status: 'skipped', attempts: 1, last_error: null });
    expect((await readReport(ctx.database.db, ids.pending, MONTH_SETTLED))).toMatchObject({ status: 'failed', attempts: 2, last_error: 'late' });
    expect((await readReport(ctx.database.db, ids.failed, MONTH_SETTLED))).toMatchObject({ status: 'failed', attempts: 2, last_error: 'late' });
  });
});

describe('months and reports left unsettled', () => {
  test('listUnsettledMonths: earlier months with live checks whose report is missing, pending or failed, newest first; never one accepted or skipped, one without checks, or the month itself', async () => {
    const a = await ctx.account('growth');
    await ctx.database.db
      .insertInto('usage_counters')
      .values([
        { account_id: a.id, month: '2019-01', shard: 0, checks: 4 },
        { account_id: a.id, month: '2019-02', shard: 0, checks: 3 },
        { account_id: a.id, month: '2019-03', shard: 1, checks: 2 },
        { account_id: a.id, month: '2019-04', shard: 0, checks: 0 },
        { account_id: a.id, month: '2019-05', shard: 0, checks: 6 },
        { account_id: a.id, month: '2019-06', shard: 0, checks: 1 },
        { account_id: a.id, month: '2019-07', shard: 0, checks: 9 },
      ])
      .execute();
    const report = (month: string, status: 'pending' | 'accepted' | 'skipped' | 'failed') => ({
      account_id: a.id,
      month,
      quantity: 1,
      status,
      attempts: 1,
      last_status_code: null,
      last_error: null,
      idempotency_key: `${a.id}:${month}`,
      created_at: new Date(),
      updated_at: new Date(),
      reported_at: null,
    });
    await ctx.database.db.insertInto('usage_reports').values([report('2019-01', 'accepted'), report('2019-02', 'failed'), report('2019-05', 'skipped'), report('2019-06', 'pending')]).execute();

    const activities = activitiesFor(undefined);
    // 2019-07 is the month asked before: not earlier than itself.
    expect(await activities.listUnsettledMonths('2019-07')).toEqual(['2019-06', '2019-03', '2019-02']);
    expect(await unsettledMonthsBefore(ctx.database.db, '2019-07', 2)).toEqual(['2019-06', '2019-03']);
    expect(await activities.listUnsettledMonths('2019-03')).toEqual(['2019-02']);
    const refused = await failureOf(activities.listUnsettledMonths('2019-13'));
    expect(refused).toMatchObject({ type: 'MonthNotReportable', nonRetryable: true });
  });

  test('countUnsettledReports counts reports pending or failed, never accepted or skipped', async () => {
    const before = await countUnsettledReports(ctx.database.db);
    const accounts = await Promise.all([ctx.account('growth'), ctx.account('growth'), ctx.account('growth'), ctx.account('growth')]);
    const statuses = ['pending', 'failed', 'accepted', 'skipped'] as const;
    await ctx.database.db
      .insertInto('usage_reports')
      .values(
        accounts.map((acct, i) => ({
          account_id: acct.id,
          month: '2019-08',
          quantity: 1,
          status: statuses[i]!,
          attempts: 1,
          last_status_code: null,
          last_error: null,
          idempotency_key: `${acct.id}:2019-08`,
          created_at: new Date(),
          updated_at: new Date(),
          reported_at: null,
        })),
      )
      .execute();
    expect(await countUnsettledReports(ctx.database.db)).toBe(before + 2);
  });
});

describe('the CLI runner (the reporter the activities run, without the engine)', () => {
  test('retries transient failures with backoff and honours Retry-After; a re-run posts nothing', async () => {
    const month = '2025-03';
    const a = await ctx.account('growth');
    const b = await ctx.account('starter');
    await ctx.database.db.insertInto('usage_counters').values([
      { account_id: a.id, month, shard: 0, checks: 12 },
      { account_id: b.id, month, shard: 3, checks: 5 },
    ]).execute();
    const meter = await startMeter([503, { status: 429, headers: { 'retry-after': '2' } }]);
    const reporter = createUsageReporter({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: 'k' } });
    const slept: number[] = [];
    const summary = await runUsageReport({ month, reporter, sleep: async (ms) => void slept.push(ms) });

    const mine = meter.requests.filter((r) => [a.id, b.id].includes(r.body.account_id));
    expect(summary.failed.filter((f) => [a.id, b.id].includes(f.accountId))).toEqual([]);
    // 503 → 1 s backoff; 429 with Retry-After: 2 → 2 s. Whichever account came first took both.
    expect(slept.slice(0, 2)).toEqual([1_000, 2_000]);
    expect(mine).toHaveLength(4);
    for (const [acct, quantity] of [[a.id, 12], [b.id, 5]] as const) {
      const sent = mine.filter((r) => r.body.account_id === acct);
      expect(sent.length).toBeGreaterThanOrEqual(1);
      for (const r of sent) {
        expect(r.body).toEqual({ account_id: acct, month, quantity, idempotency_key: `${acct}:${month}` });
        expect(r.headers['idempotency-key']).toBe(`${acct}:${month}`);
      }
    }
    expect((await reportRow(a.id, month))?.status).toBe('accepted');
    expect((await reportRow(b.id, month))?.status).toBe('accepted');

    const before = meter.requests.length;
    const rerun = await runUsageReport({ month, reporter, sleep: async () => {} });
    expect(rerun.accounts).toBe(0);
    expect(meter.requests.length).toBe(before);
  });

  test('the summary counts each account once: accepted by the meter, or skipped when no meter is configured', async () => {
    const month = '2025-05';
    const a = await ctx.account('growth');
    const b = await ctx.account('growth');
    await ctx.database.db.insertInto('usage_counters').values([
      { account_id: a.id, month, shard: 0, checks: 7 },
      { account_id: b.id, month, shard: 0, checks: 2 },
    ]).execute();
    const meter = await startMeter();
    const metered = createUsageReporter({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: 'k' } });
    const unmetered = createUsageReporter({ db: ctx.database.db, billingMeter: { url: undefined, apiKey: undefined } });
    const summary = await runUsageReport({
      month,
      reporter: {
        listAccountsToReport: async (m, after) => (await metered.listAccountsToReport(m, after)).filter((id) => id === a.id || id === b.id),
        reportAccountUsage: (input) => (input.accountId === a.id ? metered : unmetered).reportAccountUsage(input),
      },
      sleep: async () => {},
    });
    expect(summary).toEqual({ month, accounts: 2, accepted: 1, skipped: 1, failed: [] });
    expect((await reportRow(a.id, month))?.status).toBe('accepted');
    expect((await reportRow(b.id, month))?.status).toBe('skipped');
  });

  test('without a sleep of its own, the runner really waits between attempts', async () => {
    const month = '2025-06';
    const a = await ctx.account('growth');
    await ctx.database.db.insertInto('usage_counters').values({ account_id: a.id, month, shard: 0, checks: 1 }).execute();
    const meter = await startMeter([503]);
    const reporter = createUsageReporter({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: 'k' } });
    const started = Date.now();
    const summary = await runUsageReport({
      month,
      reporter: { listAccountsToReport: async (m, after) => (await reporter.listAccountsToReport(m, after)).filter((id) => id === a.id), reportAccountUsage: (input) => reporter.reportAccountUsage(input) },
      retryBaseMs: 300,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(summary).toEqual({ month, accounts: 1, accepted: 1, skipped: 0, failed: [] });
  });

  test('an account still failing after the attempts is reported back, the rest go on', async () => {
    const month = '2025-04';
    const a = await ctx.account('growth');
    await ctx.database.db.insertInto('usage_counters').values({ account_id: a.id, month, shard: 0, checks: 1 }).execute();
    const meter = await startMeter([500, 500, 500, 500]);
    const reporter = createUsageReporter({ db: ctx.database.db, billingMeter: { url: meter.url, apiKey: 'k' } });
    // Only this account: on a database kept from an earlier run, that run's account of this month is still pending.
    const summary = await runUsageReport({
      month,
      reporter: { listAccountsToReport: async (m, after) => (await reporter.listAccountsToReport(m, after)).filter((id) => id === a.id), reportAccountUsage: (input) => reporter.reportAccountUsage(input) },
      attempts: 4,
      sleep: async () => {},
    });
    expect(summary.failed.find((f) => f.accountId === a.id)).toEqual({ accountId: a.id, error: 'billing meter answered HTTP 500', permanent: false });
    expect(await reportRow(a.id, month)).toMatchObject({ status: 'pending', attempts: 4 });
  });
});

describe('retryAfterMs', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  test.each([
    ['7', 7_000],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['999999', 3_600_000],
    ['soon', undefined],
    [null, undefined],
  ])('%j → %s ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });
});
