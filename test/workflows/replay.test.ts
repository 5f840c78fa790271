/**
 * Replays every history in test/histories/ against today's workflow code, with no server.
 *
 * A history pins both what the workflow saw and which commands it issued; replay fails with a
 * DeterminismViolationError when the code would issue different commands (other activity type or
 * id, a timer more or less, another order). It does not compare values and does not re-run Update
 * validators; the "limits" block below pins that. Activity inputs and the workflow's result are
 * compared here through test/support/replay-recorder.ts; search attribute values, timer durations
 * and validators are asserted in activity and server tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { workflowBundleOptions } from '../../src/temporal/worker.js';
import { bundleForReplay } from '../support/replay-bundle.js';
import { bundleWithRecorder, recordedValues, ReplaySession, replayValues } from '../support/replay-recorder.js';
import { assertWellFormed, HELD_SCENARIOS, heldAuthorizationHistory, HistoryBuilder, jsonPayload, payloads, type HistoryEventJson, type HistoryJson } from '../support/history-builder.js';
import type { ReconcileResult } from '../../workflows/reconcile-holds.types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HISTORIES_DIR = path.resolve(here, '../histories');
const WORKFLOWS_PATH = path.resolve(here, '../../workflows/index.ts');

/** Hand-built and recorded fixtures alike: every JSON file in test/histories/. */
const FIXTURES = fs
  .readdirSync(HISTORIES_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

const load = (name: string): HistoryJson => JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, `${name}.json`), 'utf8')) as HistoryJson;

const attributesOf = (event: HistoryEventJson): Record<string, any> => {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes'));
  if (!key) throw new Error(`event ${event.eventId} has no attributes`);
  return event[key as `${string}EventAttributes`] as Record<string, any>;
};

const workflowIdOf = (history: HistoryJson): string => {
  const first = history.events[0];
  return (first && (attributesOf(first).workflowId as string | undefined)) ?? 'held-replay';
};

const isType = (type: string) => (e: HistoryEventJson) => e.eventType === `EVENT_TYPE_${type}`;

/** The patch id of a `core_patch` marker (its payload is `{"id": "…", …}`). */
const patchOf = (e: HistoryEventJson): string | undefined => {
  const data = attributesOf(e).details?.['patch-data']?.payloads?.[0]?.data as string | undefined;
  return data === undefined ? undefined : (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id?: string }).id;
};
/** Whether the run recorded the patch `id`. */
const patchMarked = (history: HistoryJson, id: string) => history.events.some((e) => isType('MARKER_RECORDED')(e) && patchOf(e) === id);

/**
 * Removes events and renumbers the rest, remapping the `…EventId` references, so the result is the
 * coherent history a server would have recorded had those events never happened (a gap in the ids
 * would fail earlier, as an "out of order" history, and prove nothing about the workflow).
 */
function withoutEvents(history: HistoryJson, drop: (e: HistoryEventJson) => boolean): HistoryJson {
  const kept = structuredClone(history.events).filter((e) => !drop(e));
  if (kept.length === history.events.length) throw new Error('nothing matched the events to drop');
  return renumbered(kept);
}

function renumbered(events: HistoryEventJson[]): HistoryJson {
  const newId = new Map(events.map((e, i) => [e.eventId, String(i + 1)]));
  for (const e of events) {
    e.eventId = newId.get(e.eventId)!;
    const attrs = attributesOf(e);
    for (const [k, v] of Object.entries(attrs)) if (k.endsWith('EventId') && typeof v === 'string' && newId.has(v)) attrs[k] = newId.get(v);
  }
  return { events };
}

/** Swaps the first event matching `first` with the event after it (ids stay ascending; references follow their event). */
function withNextEventFirst(history: HistoryJson, first: (e: HistoryEventJson) => boolean): HistoryJson {
  const events = structuredClone(history.events);
  const i = events.findIndex(first);
  if (i < 0 || i + 1 >= events.length) throw new Error('no event to swap');
  [events[i], events[i + 1]] = [events[i + 1]!, events[i]!];
  return renumbered(events);
}

function editAttributes(history: HistoryJson, match: (e: HistoryEventJson) => boolean, edit: (attrs: Record<string, any>) => void): HistoryJson {
  const copy = structuredClone(history);
  const targets = copy.events.filter(match);
  if (targets.length === 0) throw new Error('no event to edit');
  for (const e of targets) edit(attributesOf(e));
  return copy;
}

let workflowBundle: WorkflowBundle;
/** The same code with the tracing interceptors, as a worker with OTEL_EXPORTER_OTLP_ENDPOINT runs it. */
let tracedBundle: WorkflowBundle;
/** The sink the traced code exports its spans by; never called while replaying. */
const TRACING_SINKS = { exporter: { export: { fn: () => undefined } } };
/** The same code bundled with the interceptors that report activity inputs and the result. */
let recordingBundle: WorkflowBundle;
/** Recorded from a real server: an approval of a live hold sent straight to the engine, refused, then a reviewer's approval through the API. */
const REFUSAL_HISTORIES = ['recorded-approval-refused-by-signal-then-approved', 'recorded-approval-refused-by-update-then-approved'];
/** Histories of other workflows than heldAuthorization, with the activity each must schedule. */
const RESOLVE_ACTIVITIES: Record<string, string> = {
  'recorded-usage-report-retried': 'reportAccountUsage',
  'recorded-webhook-delivered-after-retries': 'deliverWebhook',
  'recorded-webhook-failed': 'deliverWebhook',
  // Approval chains: the approval that completes the quorum resolves the hold.
  'recorded-approved-by-quorum': 'recordApproval',
  'recorded-approved-by-operator-and-reviewers': 'recordApproval',
  'recorded-approved-by-three-at-once': 'recordApproval',
  'recorded-escalated-then-approved': 'escalateHold',
  'recorded-capture-expiry-sweep': 'expireUncapturedApprovals',
  'recorded-audit-checkpoints': 'sendAuditCheckpoints',
};

/*
 * One replay Worker per bundle for the whole file (a Worker per history loads the bundle into a
 * new V8 context and starts a core worker each time: most of a replay's cost). Each test still
 * replays its own history and gets the error runReplayHistory would have thrown.
 */
let plain: ReplaySession;
let recording: ReplaySession;
let traced: ReplaySession;

/** Throws what replay threw, naming the history. */
async function replayOrThrow(session: ReplaySession, name: string, history: HistoryJson): Promise<void> {
  const error = await session.replay(history, workflowIdOf(history));
  if (error !== undefined) throw new Error(`${name} did not replay: ${(error as Error).message ?? String(error)}`, { cause: error });
}

const replay = (name: string, history: HistoryJson) => replayOrThrow(plain, name, history);

async function expectNondeterminism(name: string, history: HistoryJson, message: RegExp): Promise<void> {
  const error = await plain.replay(history, workflowIdOf(history));
  expect(error, `replay of the edited ${name} should have failed`).toBeInstanceOf(DeterminismViolationError);
  expect((error as Error).message, name).toMatch(message);
}

beforeAll(async () => {
  // Replays that are meant to fail make Core log a WARN per failed task; keep the output readable.
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // A Runtime already exists in this process: keep it.
  }
  [workflowBundle, recordingBundle, tracedBundle] = await Promise.all([
    bundleForReplay({ workflowsPath: WORKFLOWS_PATH }),
    bundleWithRecorder(),
    bundleForReplay(workflowBundleOptions(WORKFLOWS_PATH, true)),
  ]);
  plain = new ReplaySession({ workflowBundle, replayName: 'held-authorization-replay' });
  recording = new ReplaySession({ workflowBundle: recordingBundle, replayName: 'replay-values' });
  traced = new ReplaySession({ workflowBundle: tracedBundle, sinks: TRACING_SINKS, replayName: 'held-authorization-replay-traced' });
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.close(), recording?.close(), traced?.close()]);
});

describe('history fixtures replay against the current workflow code', () => {
  test('the fixtures directory holds every hand-built scenario', () => {
    expect(FIXTURES).toEqual(expect.arrayContaining(Object.keys(HELD_SCENARIOS)));
  });

  test.each(FIXTURES)('%s replays, scheduling each activity (resolveHeldDecision for a hold) with the input it recorded and returning the recorded result', async (name) => {
    const history = load(name);
    const recorded = recordedValues(history);
    expect(recorded.activities.map((a) => a.activityType)).toContain(RESOLVE_ACTIVITIES[name] ?? 'resolveHeldDecision');
    expect(await replayValues(recording, history, workflowIdOf(history))).toEqual(recorded);
  });
});

describe('replay compares the values the code produces with the recorded ones', () => {
  test.each([
    ['recorded-expired', 'approved'],
    ['expired', 'approved'],
    ['approved-by-signal', 'denied'],
  ])('%s with resolveHeldDecision recorded as %s: replays without a determinism error, but not to the recorded input', async (name, outcome) => {
    const history = editAttributes(load(name), isType('ACTIVITY_TASK_SCHEDULED'), (a) => {
      const input = JSON.parse(Buffer.from(a.input.payloads[0].data, 'base64').toString('utf8')) as Record<string, unknown>;
      a.input.payloads[0] = jsonPayload({ ...input, outcome });
    });
    const replayed = await replayValues(recording, history, workflowIdOf(history));
    const recorded = recordedValues(history);
    expect((recorded.activities[0]!.args[0] as { outcome: string }).outcome).toBe(outcome);
    expect((replayed.activities[0]!.args[0] as { outcome: string }).outcome).not.toBe(outcome);
    expect(replayed).not.toEqual(recorded);
  });
});

describe('turning tracing on is no workflow change', () => {
  // Runs recorded without the interceptors go on under them.
  test.each(FIXTURES)('%s replays with the tracing interceptors', async (name) => {
    const history = load(name);
    await replayOrThrow(traced, name, history);
  });
});

/** A reconcile run as the Schedule starts it: one activity, its result returned as the run's. */
function reconcileRun(): HistoryJson {
  const b = new HistoryBuilder({ workflowId: 'reconcile-held-requests', runId: '0195a1b2-0200-7000-8000-000000000200', startTime: new Date('2026-11-21T12:00:00.000Z'), taskQueue: 'spend-authorization' });
  b.workflowExecutionStarted({ workflowType: 'reconcileHeldRequests', input: payloads() });
  b.workflowTask();
  const scheduled = b.activityTaskScheduled({
    activityId: '1',
    activityType: 'reconcileHolds',
    input: payloads(),
    startToCloseMs: 600_000,
    heartbeatMs: 60_000,
    retryPolicy: { initialIntervalMs: 10_000, backoffCoefficient: 2, maximumIntervalMs: 1_000_000, maximumAttempts: 3, nonRetryableErrorTypes: [] },
  });
  const started = b.activityTaskStarted({ scheduledEventId: scheduled });
  const result: ReconcileResult = { checked: 3, running: 1, restarted: 1, expired: 1, failed: 0 };
  b.activityTaskCompleted({ scheduledEventId: scheduled, startedEventId: started, result });
  b.workflowTask();
  b.workflowExecutionCompleted({ result });
  return b.build();
}

describe('reconcileHeldRequests', () => {
  test('replays one reconcileHolds activity (10 minutes, a heartbeat each minute, three attempts) and returns its result', async () => {
    const history = reconcileRun();
    assertWellFormed(history);
    const replayed = await replayValues(recording, history, 'reconcile-held-requests');
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.result).toEqual({ checked: 3, running: 1, restarted: 1, expired: 1, failed: 0 });
  });
});

/** A webhook delivery whose row was already settled when the activity ran (a redelivery after the fact). */
function settledDelivery(deliveryStatus: 'delivered' | 'failed'): HistoryJson {
  const b = new HistoryBuilder({ workflowId: `webhook-settled-${deliveryStatus}`, runId: '0195a1b2-0300-7000-8000-000000000300', startTime: new Date('2026-11-21T12:00:00.000Z'), taskQueue: 'spend-authorization' });
  const input = { deliveryId: 'del_FxSettled0000000000000000' };
  b.workflowExecutionStarted({ workflowType: 'webhookDelivery', input: payloads(input) });
  b.workflowTask();
  const scheduled = b.activityTaskScheduled({
    activityId: '1',
    activityType: 'deliverWebhook',
    input: payloads(input),
    startToCloseMs: 30_000,
    scheduleToCloseMs: 3 * 86_400_000,
    retryPolicy: { initialIntervalMs: 30_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000, nonRetryableErrorTypes: ['WebhookPermanentFailure', 'WebhookUrlRefused', 'WebhookEndpointGone', 'DeliveryNotFound'] },
  });
  const started = b.activityTaskStarted({ scheduledEventId: scheduled });
  b.activityTaskCompleted({ scheduledEventId: scheduled, startedEventId: started, result: { status: 'already_completed', statusCode: deliveryStatus === 'delivered' ? 200 : 410, deliveryStatus } });
  b.workflowTask();
  b.workflowExecutionCompleted({ result: deliveryStatus });
  return b.build();
}

describe('webhookDelivery of a delivery already settled', () => {
  test.each(['delivered', 'failed'] as const)('settled as %s: reported as it was settled, with no second attempt', async (deliveryStatus) => {
    const history = settledDelivery(deliveryStatus);
    assertWellFormed(history);
    const replayed = await replayValues(recording, history, `webhook-settled-${deliveryStatus}`);
    expect(replayed).toEqual(recordedValues(history));
    expect(replayed.result).toBe(deliveryStatus);
    expect(replayed.activities.map((a) => a.activityType)).toEqual(['deliverWebhook']);
  });
});

describe('hand-built fixtures', () => {
  test.each(Object.keys(HELD_SCENARIOS))('%s is what the builder makes today (run `npx tsx test/histories/generate.ts` after changing it)', (name) => {
    expect(load(name)).toEqual(heldAuthorizationHistory(HELD_SCENARIOS[name]!));
  });

  test.each(Object.keys(HELD_SCENARIOS))('%s uses only fields the Temporal protos know', (name) => {
    assertWellFormed(load(name));
  });
});

describe('replay is a behaviour test: a history the code would not produce fails', () => {
  test('activity type renamed: the code schedules resolveHeldDecision', async () => {
    const history = editAttributes(load('approved-by-signal'), isType('ACTIVITY_TASK_SCHEDULED'), (a) => {
      a.activityType.name = 'recordResolution';
    });
    await expectNondeterminism('approved-by-signal', history, /Activity type of scheduled event 'recordResolution' does not match.*'resolveHeldDecision'/);
  });

  test('activity id changed: the first activity of a run gets id "1"', async () => {
    const history = editAttributes(load('denied-by-signal'), isType('ACTIVITY_TASK_SCHEDULED'), (a) => {
      a.activityId = 'resolve';
    });
    await expectNondeterminism('denied-by-signal', history, /Activity id of scheduled event 'resolve' does not match/);
  });

  test('TimerStarted dropped: a hold that expires in the future starts a timer', async () => {
    const history = withoutEvents(load('expired'), isType('TIMER_STARTED'));
    await expectNondeterminism('expired', history, /Nondeterminism error/);
  });

  test('TimerCanceled dropped: a signal that decides cancels the expiry timer', async () => {
    const history = withoutEvents(load('approved-by-signal'), isType('TIMER_CANCELED'));
    await expectNondeterminism('approved-by-signal', history, /Timer machine does not handle this event.*ActivityTaskScheduled/);
  });

  test('UpsertWorkflowSearchAttributes dropped: the resolved status is published for the Temporal UI', async () => {
    const history = withoutEvents(load('started-after-expiry'), isType('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'));
    await expectNondeterminism('started-after-expiry', history, /UpsertWorkflowSearchAttributesMachine does not handle/);
  });

  test('Update completed before the upsert: the handler returns only after the result is recorded', async () => {
    const history = withNextEventFirst(load('approved-by-update'), isType('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'));
    await expectNondeterminism('approved-by-update', history, /UpsertWorkflowSearchAttributesMachine does not handle.*WorkflowExecutionUpdateCompleted/);
  });

  test('UpdateCompleted dropped: the workflow waits for its Update handler before completing', async () => {
    const history = withoutEvents(load('approved-by-update'), isType('WORKFLOW_EXECUTION_UPDATE_COMPLETED'));
    await expectNondeterminism('approved-by-update', history, /Update machine does not handle this event.*WorkflowExecutionCompleted/);
  });

  test('no Update arrived: nothing explains the cancelled timer', async () => {
    const history = withoutEvents(load('approved-by-update'), (e) => isType('WORKFLOW_EXECUTION_UPDATE_ACCEPTED')(e) || isType('WORKFLOW_EXECUTION_UPDATE_COMPLETED')(e));
    await expectNondeterminism('approved-by-update', history, /No command scheduled for event.*TimerCanceled/);
  });

  test('a signal with an invalid outcome is ignored, so it cannot end the wait', async () => {
    const history = editAttributes(load('approved-by-signal'), isType('WORKFLOW_EXECUTION_SIGNALED'), (a) => {
      a.input.payloads[0] = jsonPayload({ outcome: 'maybe', reviewer: 'ops@example.com' });
    });
    await expectNondeterminism('approved-by-signal', history, /No command scheduled for event.*TimerCanceled/);
  });

  test('a signal under another name is not the approval signal', async () => {
    const history = editAttributes(load('denied-by-signal'), isType('WORKFLOW_EXECUTION_SIGNALED'), (a) => {
      a.signalName = 'approval_decision';
    });
    await expectNondeterminism('denied-by-signal', history, /No command scheduled for event.*TimerCanceled/);
  });

  test('expiresAt already past at start: the code resolves at once instead of starting a timer', async () => {
    const history = editAttributes(load('expired'), isType('WORKFLOW_EXECUTION_STARTED'), (a) => {
      const input = JSON.parse(Buffer.from(a.input.payloads[0].data, 'base64').toString('utf8')) as { decisionId: string; expiresAt: string };
      a.input.payloads[0] = jsonPayload({ ...input, expiresAt: '2025-03-04T09:00:00.000Z' });
    });
    await expectNondeterminism('expired', history, /Activity machine does not handle this event.*TimerStarted/);
  });
});

describe("approval chains are behind patched('approval-chains')", () => {
  const hasPatchMarker = (history: HistoryJson) => patchMarked(history, 'approval-chains');
  /** Recorded from a real server after approval chains shipped: a quorum, a denial after one approval, an operator's signal, an escalation, three approvals at once, refused approvals. */
  const CHAIN_HISTORIES = ['recorded-approved-by-quorum', 'recorded-denied-after-one-approval', 'recorded-approved-by-operator-and-reviewers', 'recorded-escalated-then-approved', 'recorded-approved-by-three-at-once', ...REFUSAL_HISTORIES];

  test('the histories recorded before the change carry no patch marker (so they replay the single-approval path), the new ones do', () => {
    const before = FIXTURES.filter((f) => f.startsWith('recorded-') && !CHAIN_HISTORIES.includes(f) && attributesOf(load(f).events[0]!).workflowType?.name === 'heldAuthorization');
    expect(before.length).toBeGreaterThanOrEqual(8);
    for (const f of before) expect(hasPatchMarker(load(f)), f).toBe(false);
    for (const f of CHAIN_HISTORIES) expect(hasPatchMarker(load(f)), f).toBe(true);
  });

  // The marker goes with the SDK's upsert of TemporalChangeVersion (the patch ids, for the UI); both dropped.
  test('a quorum history without its marker fails: the single-approval path would resolve at the first approval', async () => {
    const history = withoutEvents(load('recorded-approved-by-quorum'), (e) => isType('MARKER_RECORDED')(e) || (isType('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')(e) && 'TemporalChangeVersion' in (attributesOf(e).searchAttributes?.indexedFields ?? {})));
    await expectNondeterminism('recorded-approved-by-quorum', history, /Nondeterminism|does not match|does not handle/);
  });

  test('the escalation history schedules escalateHold before the approvals', () => {
    const scheduled = load('recorded-escalated-then-approved').events.filter(isType('ACTIVITY_TASK_SCHEDULED')).map((e) => attributesOf(e).activityType.name);
    expect(scheduled).toEqual(['escalateHold', 'recordApproval', 'recordApproval']);
  });
});

describe("answers to approvals arriving together are behind patched('settled-approval-answers')", () => {
  test('only the histories recorded after the change carry its marker', () => {
    const marked = FIXTURES.filter((f) => patchMarked(load(f), 'settled-approval-answers'));
    expect(marked.sort()).toEqual(['recorded-approved-by-three-at-once', ...REFUSAL_HISTORIES].sort());
  });

  test('all three answers wait for the last approval recorded: the Updates complete after the third activity', () => {
    const events = load('recorded-approved-by-three-at-once').events;
    const completions = events.filter(isType('WORKFLOW_EXECUTION_UPDATE_COMPLETED')).map((e) => Number(e.eventId));
    const activities = events.filter(isType('ACTIVITY_TASK_COMPLETED')).map((e) => Number(e.eventId));
    expect(completions).toHaveLength(3);
    expect(activities).toHaveLength(3);
    expect(Math.min(...completions)).toBeGreaterThan(Math.max(...activities));
  });

  test('without its marker the history fails: the code before the change answers each approval as its own activity ends', async () => {
    // The marker goes with the SDK's upsert of TemporalChangeVersion naming it; both dropped.
    const namesPatch = (e: HistoryEventJson) => {
      const version = attributesOf(e).searchAttributes?.indexedFields?.TemporalChangeVersion?.data as string | undefined;
      return version !== undefined && Buffer.from(version, 'base64').toString('utf8').includes('settled-approval-answers');
    };
    const history = withoutEvents(
      load('recorded-approved-by-three-at-once'),
      (e) => (isType('MARKER_RECORDED')(e) && patchOf(e) === 'settled-approval-answers') || (isType('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')(e) && namesPatch(e)),
    );
    expect(history.events.length).toBe(load('recorded-approved-by-three-at-once').events.length - 2);
    await expectNondeterminism('recorded-approved-by-three-at-once', history, /Nondeterminism|does not match|does not handle/);
  });
});

describe("refused approvals sent straight to the engine are behind patched('refused-engine-approvals')", () => {
  test('only the histories of a refusal carry its marker, set when the refusal came back', () => {
    expect(FIXTURES.filter((f) => patchMarked(load(f), 'refused-engine-approvals')).sort()).toEqual([...REFUSAL_HISTORIES].sort());
  });

  test.each(REFUSAL_HISTORIES)('%s: the refused approval leaves the hold pending and the wait goes on (a new timer) until a reviewer approves through the API', async (name) => {
    const history = load(name);
    const recorded = recordedValues(history);
    const results = history.events.filter(isType('ACTIVITY_TASK_COMPLETED')).map((e) => JSON.parse(Buffer.from(attributesOf(e).result.payloads[0].data, 'base64').toString('utf8')) as Record<string, unknown>);
    expect(results[0]).toMatchObject({ status: 'pending', changed: false, refusal: 'live_approval_outside_api' });
    expect(results.at(-1)).toMatchObject({ status: 'approved', changed: true });
    expect(recorded.result).toMatchObject({ status: 'approved' });
    // The reviewer's own Update carries the API's mark to the activity; the refused outcomes carry none that verifies.
    expect((recorded.activities.at(-1)!.args[0] as { via: string; authority?: string }).authority).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(history.events.filter(isType('TIMER_STARTED')).length).toBeGreaterThanOrEqual(2);
  });

  test('without its marker a refusal history fails: the code before the change ends the run with the hold pending', async () => {
    const name = REFUSAL_HISTORIES[0]!;
    const namesPatch = (e: HistoryEventJson) => {
      const version = attributesOf(e).searchAttributes?.indexedFields?.TemporalChangeVersion?.data as string | undefined;
      return version !== undefined && Buffer.from(version, 'base64').toString('utf8').includes('refused-engine-approvals');
    };
    const history = withoutEvents(load(name), (e) => (isType('MARKER_RECORDED')(e) && patchOf(e) === 'refused-engine-approvals') || (isType('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')(e) && namesPatch(e)));
    expect(history.events.length).toBe(load(name).events.length - 2);
    await expectNondeterminism(name, history, /Nondeterminism|does not match|does not handle/);
  });
});

describe('limits of replay (why values are asserted elsewhere)', () => {
  test('a different activity result (so a different search attribute value) or timer duration still replays', async () => {
    // History says the activity returned "approved" and the workflow upserted ApprovalStatus=approved;
    // with a "denied" result the code upserts "denied", and replay does not notice.
    let history = editAttributes(load('approved-by-signal'), isType('ACTIVITY_TASK_COMPLETED'), (a) => {
      const result = JSON.parse(Buffer.from(a.result.payloads[0].data, 'base64').toString('utf8')) as Record<string, unknown>;
      a.result.payloads[0] = jsonPayload({ ...result, decision: 'denied', status: 'denied', reasonCode: 'policy_denied' });
    });
    history = editAttributes(history, isType('TIMER_STARTED'), (a) => {
      a.startToFireTimeout = '5s';
    });
    await replay('approved-by-signal', history);
  });

  test('an accepted Update is not re-validated on replay', async () => {
    const history = editAttributes(load('approved-by-update'), isType('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'), (a) => {
      a.acceptedRequest.input.args.payloads[0] = jsonPayload({ outcome: 'maybe' });
    });
    await replay('approved-by-update', history);
  });
});
