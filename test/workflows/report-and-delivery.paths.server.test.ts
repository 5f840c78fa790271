/**
 * The branches of usageReport and webhookDelivery that no recorded history reaches, on a real
 * Temporal server: a full page continued as new (totals carried, the next page listed after the
 * last account), eight reports in flight at once, earlier unsettled months in child runs that do
 * not look for more, the cap on listed failures, and a webhook delivery settled before, refused
 * for good, or delivered.
 *
 * The activities are scripted fakes (named as such): what is under test is the workflows' choice
 * of activity, input and result. The real activities run against PostgreSQL and real HTTP
 * receivers in test/activities/. The bundle comes from bundleForReplay, so under mutation testing
 * the worker runs the mutant that is switched on (docs/testing.md).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, Runtime, Worker, type LogEntry } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { bundleForReplay } from '../support/replay-bundle.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';
import type { usageReport, webhookDelivery } from '../../workflows/index.js';
import { USAGE_REPORT_PAGE_SIZE, type ReportAccountInput, type ReportAccountResult } from '../../src/usage/usage-report.js';
import { METER_REJECTED, USAGE_REPORT_CONCURRENCY } from '../../workflows/usage-report.types.js';

const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');
const mode = serverModeOrSkip('usage report and webhook delivery paths');

const accountsOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}_${String(i).padStart(4, '0')}`);

/** A fake billing side for one run: accounts per month and each account's answer. */
class ScriptedMeter {
  readonly listed: Array<{ month: string; after: string | undefined }> = [];
  readonly unsettledAsked: string[] = [];
  readonly reported: ReportAccountInput[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /**
   * When set, the first USAGE_REPORT_CONCURRENCY calls are held until that many are out at once
   * (or 30 s pass, so a workflow with fewer lanes fails the count rather than hanging): a lane
   * count observed without a clock, which a loaded machine cannot make flaky.
   */
  holdFirstWave = false;
  private waveReleased?: () => void;
  private readonly wave = new Promise<void>((resolve) => (this.waveReleased = resolve));

  constructor(
    readonly months: Record<string, string[]>,
    private readonly answers: { skipped?: Set<string>; rejected?: Set<string> } = {},
    private readonly unsettled: string[] = [],
  ) {}

  async listAccountsToReport(month: string, after?: string): Promise<string[]> {
    this.listed.push({ month, after });
    return (this.months[month] ?? []).filter((id) => after === undefined || id > after).slice(0, USAGE_REPORT_PAGE_SIZE);
  }

  async listUnsettledMonths(month: string): Promise<string[]> {
    this.unsettledAsked.push(month);
    return this.unsettled;
  }

  async reportAccountUsage(input: ReportAccountInput): Promise<ReportAccountResult> {
    this.reported.push(input);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.inFlight >= USAGE_REPORT_CONCURRENCY) this.waveReleased!();
    if (this.holdFirstWave && this.reported.length <= USAGE_REPORT_CONCURRENCY) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.wave, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
      clearTimeout(timer);
    } else {
      // A short stay, so a lane past the limit would show in maxInFlight.
      await new Promise((r) => setTimeout(r, 20));
    }
    this.inFlight -= 1;
    if (this.answers.rejected?.has(input.accountId)) throw ApplicationFailure.nonRetryable(`the meter refused ${input.accountId}`, METER_REJECTED);
    const status = this.answers.skipped?.has(input.accountId) ? 'skipped' : 'accepted';
    return { ...input, quantity: 1, status, posted: status === 'accepted', idempotencyKey: `${input.accountId}:${input.month}` };
  }
}

type DeliveryScript = { answer: { status: 'delivered' | 'already_completed'; statusCode: number | null; deliveryStatus?: 'delivered' | 'failed' } } | { refuse: { type: string; message: string } };

describe.skipIf(!mode)(`usageReport and webhookDelivery, branch by branch (${mode?.kind ?? 'no server'})`, () => {
  let server: ServerEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `report-delivery-paths-${Date.now().toString(36)}`;
  /** The meter of each run, by the month its test bills first (children bill other months of the same meter). */
  const meters = new Map<string, ScriptedMeter>();
  const deliveries = new Map<string, DeliveryScript>();
  const markedFailed: Array<{ deliveryId: string; reason: string }> = [];

  const meterFor = (month: string) => {
    for (const meter of meters.values()) if (meter.months[month]) return meter;
    throw new Error(`no meter for ${month}`);
  };

  /** Warnings logged in this process; the workflows' own come through the Runtime's logger as `sdkComponent: 'workflow'`. */
  const warnings: LogEntry[] = [];
  let capturingWarnings = false;

  beforeAll(async () => {
    try {
      Runtime.install({
        logger: new DefaultLogger('WARN', (entry) => void (entry.level === 'WARN' && warnings.push(entry))),
        telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
      });
      capturingWarnings = true;
    } catch {
      // A Runtime already exists in this process: keep it (the test of the warnings then says so).
    }
    server = await openServer(mode!);
    const workflowBundle = await bundleForReplay({ workflowsPath: WORKFLOWS_PATH });
    worker = await Worker.create({
      connection: server.env.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      workflowBundle,
      activities: {
        listAccountsToReport: (month: string, after?: string) => meterFor(month).listAccountsToReport(month, after),
        listUnsettledMonths: (month: string) => meterFor(month).listUnsettledMonths(month),
        reportAccountUsage: (input: ReportAccountInput) => meterFor(input.month).reportAccountUsage(input),
        deliverWebhook: async ({ deliveryId }: { deliveryId: string }) => {
          const script = deliveries.get(deliveryId)!;
          if ('refuse' in script) throw ApplicationFailure.nonRetryable(script.refuse.message, script.refuse.type);
          return script.answer;
        },
        markWebhookFailed: async (input: { deliveryId: string; reason: string }) => {
          markedFailed.push(input);
        },
      },
    });
    running = worker.run();
  }, 180_000);

  afterAll(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await server?.teardown();
  }, 60_000);

  const runReport = (month: string) =>
    server.env.client.workflow.start<typeof usageReport>('usageReport', { workflowId: `usage-paths-${month}-${Date.now().toString(36)}`, taskQueue, args: [{ month }] });

  describe.concurrent('usageReport', () => {
    test('a full page continues as new with the totals so far; the next page is listed after its last account; eight reports are out at once', async () => {
      const accounts = accountsOf('acct_page', USAGE_REPORT_PAGE_SIZE + 3);
      const meter = new ScriptedMeter({ '2024-03': accounts }, { skipped: new Set([accounts[1]!, accounts[501]!]), rejected: new Set([accounts[2]!, accounts[502]!]) });
      meter.holdFirstWave = true;
      meters.set('2024-03', meter);
      const handle = await runReport('2024-03');
      const result = await handle.result();

      expect(result).toEqual({ month: '2024-03', accounts: 503, accepted: 499, skipped: 2, failed: 2, failedAccountIds: [accounts[2], accounts[502]], earlierMonths: [] });
      expect(meter.listed).toEqual([
        { month: '2024-03', after: undefined },
        { month: '2024-03', after: accounts[USAGE_REPORT_PAGE_SIZE - 1] },
      ]);
      expect(meter.reported.map((r) => r.accountId).sort()).toEqual(accounts);
      expect(new Set(meter.reported.map((r) => r.month))).toEqual(new Set(['2024-03']));
      expect(meter.maxInFlight).toBe(USAGE_REPORT_CONCURRENCY);
      // Earlier months are looked for once, by the run that ends the chain.
      expect(meter.unsettledAsked).toEqual(['2024-03']);
      const first = await server.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
      expect(first.status.name).toBe('CONTINUED_AS_NEW');
    });

    test('earlier unsettled months run as children that bill their own month and look for no more, even across a full page', async () => {
      const meter = new ScriptedMeter(
        { '2024-06': accountsOf('acct_june', 2), '2024-04': accountsOf('acct_april', USAGE_REPORT_PAGE_SIZE + 1), '2024-05': [] },
        { rejected: new Set(['acct_april_0007']) },
        ['2024-04', '2024-05'],
      );
      meters.set('2024-06', meter);
      const handle = await runReport('2024-06');
      const result = await handle.result();

      expect(result).toEqual({
        month: '2024-06',
        accounts: 2,
        accepted: 2,
        skipped: 0,
        failed: 0,
        failedAccountIds: [],
        earlierMonths: [
          { month: '2024-04', accounts: 501, accepted: 500, skipped: 0, failed: 1, failedAccountIds: ['acct_april_0007'] },
          { month: '2024-05', accounts: 0, accepted: 0, skipped: 0, failed: 0, failedAccountIds: [] },
        ],
      });
      expect(meter.unsettledAsked).toEqual(['2024-06']);
      expect(meter.listed.filter((l) => l.month === '2024-04')).toEqual([
        { month: '2024-04', after: undefined },
        { month: '2024-04', after: 'acct_april_0499' },
      ]);
      const child = await server.env.client.workflow.getHandle(`${handle.workflowId}-2024-04`).describe();
      expect(child.status.name).toBe('COMPLETED');
    });

    test('more than a hundred accounts refused: all are counted, the first hundred listed', async () => {
      const accounts = accountsOf('acct_refused', 120);
      const meter = new ScriptedMeter({ '2024-07': accounts }, { rejected: new Set(accounts) });
      meters.set('2024-07', meter);
      const result = await (await runReport('2024-07')).result();
      expect(result.failed).toBe(120);
      expect(result.accounts).toBe(120);
      expect(result.accepted + result.skipped).toBe(0);
      expect(result.failedAccountIds).toHaveLength(100);
      expect(new Set(result.failedAccountIds).size).toBe(100);
    });

    test('each account refused is a warning naming the account, the month and the refusal', async () => {
      expect(capturingWarnings, 'this file installs the Runtime whose logger gets the warnings').toBe(true);
      const accounts = accountsOf('acct_warned', 3);
      meters.set('2024-09', new ScriptedMeter({ '2024-09': accounts }, { rejected: new Set([accounts[1]!]) }));
      const handle = await runReport('2024-09');
      expect((await handle.result()).failed).toBe(1);

      // The worker hands a workflow's log calls to the logger after the activation that made them.
      await vi.waitFor(() => {
        const mine = warnings.filter((w) => w.meta?.sdkComponent === 'workflow' && w.meta?.workflowId === handle.workflowId);
        expect(mine.map((w) => [w.message, w.meta?.accountId, w.meta?.month, w.meta?.cause])).toEqual([
          ['usage report failed for an account', accounts[1], '2024-09', `${METER_REJECTED}: the meter refused ${accounts[1]}`],
        ]);
      }, { timeout: 10_000 });
    });

    test('a month with nothing to report: no report is sent and nothing continues', async () => {
      const meter = new ScriptedMeter({ '2024-08': [] });
      meters.set('2024-08', meter);
      const handle = await runReport('2024-08');
      expect(await handle.result()).toEqual({ month: '2024-08', accounts: 0, accepted: 0, skipped: 0, failed: 0, failedAccountIds: [], earlierMonths: [] });
      expect(meter.reported).toEqual([]);
      expect(meter.listed).toEqual([{ month: '2024-08', after: undefined }]);
      // The run took the patched path under its own name: a history recorded now replays only with it.
      const patches = (await handle.fetchHistory()).events!.flatMap((e) => {
        const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
        return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
      });
      expect(patches).toEqual(['retry-unsettled-months']);
    });
  });

  describe.concurrent('webhookDelivery', () => {
    const deliver = async (deliveryId: string, script: DeliveryScript) => {
      deliveries.set(deliveryId, script);
      // Workflow ids are unique per run: a server kept across runs (mutation testing) may hold earlier ones.
      return (await server.env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', { workflowId: `delivery-paths-${deliveryId}-${taskQueue}`, taskQueue, args: [{ deliveryId }] })).result();
    };

    test('delivered', async () => {
      expect(await deliver('whd_paths_ok', { answer: { status: 'delivered', statusCode: 200 } })).toBe('delivered');
      expect(markedFailed.filter((m) => m.deliveryId === 'whd_paths_ok')).toEqual([]);
    });

    test('settled before as delivered, or as failed: reported as it was settled, nothing marked', async () => {
      expect(await deliver('whd_paths_was_ok', { answer: { status: 'already_completed', statusCode: 200, deliveryStatus: 'delivered' } })).toBe('delivered');
      expect(await deliver('whd_paths_was_failed', { answer: { status: 'already_completed', statusCode: 500, deliveryStatus: 'failed' } })).toBe('failed');
      expect(markedFailed.filter((m) => m.deliveryId.startsWith('whd_paths_was'))).toEqual([]);
    });

    test('refused for good: marked failed once, with the refusal as the reason', async () => {
      expect(await deliver('whd_paths_gone', { refuse: { type: 'WebhookEndpointGone', message: 'the endpoint answered 410' } })).toBe('failed');
      expect(markedFailed.filter((m) => m.deliveryId === 'whd_paths_gone')).toEqual([{ deliveryId: 'whd_paths_gone', reason: 'the endpoint answered 410' }]);
    });
  });
});
