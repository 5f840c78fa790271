/**
 * Hand-built workflow histories for replay tests, in the proto3 JSON shape that
 * `temporal workflow show --output json` and the Temporal UI's "Download" produce, and that
 * `Worker.runReplayHistory` accepts as is (`eventId` as a string tells it to call `historyFromJSON`).
 *
 * A history holds two kinds of events: the inputs the workflow saw (start, signal, update request,
 * timer fired, activity result) and the commands it issued (timer, activity, upsert, completion,
 * update accept/complete). Replay feeds the inputs to today's workflow code and fails when the
 * commands it issues differ from the recorded ones; so each scenario below pins a behaviour.
 *
 * `HistoryBuilder` has one method per event type; `heldAuthorizationHistory` composes them into the
 * held-authorization scenarios. Run `npx tsx test/histories/generate.ts` after changing either.
 */
import { defaultPayloadConverter, type Payload, type SearchAttributePair } from '@temporalio/common';
import { encodeUnifiedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { AgentIdKey, AmountMinorKey, ApprovalStatusKey, LivemodeKey, PolicyIdKey, VendorKey } from '../../src/temporal/search-attributes.js';
import type { HeldAuthorizationInput, ResolutionSummary, ResolveActivityInput, ReviewerOutcome } from '../../workflows/held-authorization.types.js';

// ---------------------------------------------------------------------------------------------
// JSON shapes (proto3 JSON: int64 as strings, bytes as base64, enums by name, durations as "10s")
// ---------------------------------------------------------------------------------------------

export interface PayloadJson {
  metadata: Record<string, string>;
  data: string;
}
export interface PayloadsJson {
  payloads: PayloadJson[];
}
export interface TaskQueueJson {
  name: string;
  kind: 'TASK_QUEUE_KIND_NORMAL' | 'TASK_QUEUE_KIND_STICKY';
  normalName?: string;
}
export interface HistoryEventJson {
  eventId: string;
  eventTime: string;
  eventType: string;
  taskId: string;
  /** Exactly one `<name>EventAttributes` key per event. */
  [attributes: `${string}EventAttributes`]: Record<string, unknown>;
}
export interface HistoryJson {
  events: HistoryEventJson[];
}

// ---------------------------------------------------------------------------------------------
// Encoding helpers
// ---------------------------------------------------------------------------------------------

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

function payloadToJson(payload: Payload): PayloadJson {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload.metadata ?? {})) if (v) metadata[k] = b64(v);
  return { metadata, data: b64(payload.data ?? new Uint8Array()) };
}

/** JSON-encodes a value the way the SDK's default payload converter does (`json/plain`). */
export function jsonPayload(value: unknown): PayloadJson {
  return payloadToJson(defaultPayloadConverter.toPayload(value));
}

export function payloads(...values: unknown[]): PayloadsJson {
  // No arguments: the protos record no payloads at all, not an empty list.
  if (values.length === 0) return {} as PayloadsJson;
  return { payloads: values.map(jsonPayload) };
}

/** Typed search attributes as the SDK sends them (`json/plain` plus `type: Keyword|Int|Bool`). */
export function searchAttributesJson(pairs: SearchAttributePair[]): { indexedFields: Record<string, PayloadJson> } {
  const encoded = encodeUnifiedSearchAttributes(undefined, pairs);
  return { indexedFields: Object.fromEntries(Object.entries(encoded).map(([k, p]) => [k, payloadToJson(p)])) };
}

/** Milliseconds as a proto3 JSON Duration ("86400s", "1.5s"). */
export function duration(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
}

// ---------------------------------------------------------------------------------------------
// The builder: one method per event type
// ---------------------------------------------------------------------------------------------

export const SDK_NAME = 'temporal-typescript';
export const SDK_VERSION = '1.24.0';
/** Core flags an SDK 1.24 worker writes on its first workflow task (IdAndTypeDeterminismChecks, UpsertSearchAttributeOnPatch, MoveTerminalCommands). */
export const CORE_FLAGS = [1, 2, 3];
/** TS SDK flag `ProcessWorkflowActivationJobsAsSingleBatch`: recorded on the first task whose activation carries a signal. */
export const LANG_FLAG_SINGLE_BATCH = 2;

export interface HistoryBuilderOptions {
  workflowId: string;
  runId: string;
  /** Time of the first event (WorkflowExecutionStarted). */
  startTime: Date;
  taskQueue: string;
  workerIdentity?: string;
  clientIdentity?: string;
}

export interface SdkMetadataJson {
  coreUsedFlags?: number[];
  langUsedFlags?: number[];
  sdkName?: string;
  sdkVersion?: string;
}

export class HistoryBuilder {
  readonly events: HistoryEventJson[] = [];
  private now: number;
  private taskId = 1_048_576;
  private lastWorkflowTaskScheduled = 0;
  private lastWorkflowTaskStarted = 0;
  private lastWorkflowTaskCompleted = 0;
  private lastWorkflowTaskStartedTime = 0;
  private readonly workerIdentity: string;
  private readonly clientIdentity: string;
  private readonly stickyQueue: string;

  constructor(private readonly options: HistoryBuilderOptions) {
    this.now = options.startTime.getTime();
    this.workerIdentity = options.workerIdentity ?? '4242@worker-1';
    this.clientIdentity = options.clientIdentity ?? '1717@api-1';
    this.stickyQueue = `${this.workerIdentity}-${options.taskQueue}-sticky`;
  }

  /** Moves the clock; every event also advances it by a few milliseconds. */
  advance(ms: number): this {
    this.now += ms;
    return this;
  }

  /** The time the next event will carry (the workflow's `Date.now()` is its task's WorkflowTaskStarted time). */
  get clock(): Date {
    return new Date(this.now);
  }

  /** The workflow's `Date.now()` in the current task: Core takes it from the WorkflowTaskStarted event. */
  get workflowNow(): Date {
    return new Date(this.lastWorkflowTaskStartedTime);
  }

  private add(eventType: string, attributesKey: `${string}EventAttributes`, attributes: Record<string, unknown>): number {
    this.now += 3;
    this.taskId += 1;
    const eventId = this.events.length + 1;
    const event = {
      eventId: String(eventId),
      eventTime: new Date(this.now).toISOString(),
      eventType: `EVENT_TYPE_${eventType}`,
      taskId: String(this.taskId),
    } as HistoryEventJson;
    event[attributesKey] = attributes;
    this.events.push(event);
    return eventId;
  }

  private normalQueue(): TaskQueueJson {
    return { name: this.options.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' };
  }

  workflowExecutionStarted(a: { workflowType: string; input: PayloadsJson; searchAttributes?: SearchAttributePair[]; memo?: Record<string, unknown> }): number {
    return this.add('WORKFLOW_EXECUTION_STARTED', 'workflowExecutionStartedEventAttributes', {
      workflowType: { name: a.workflowType },
      taskQueue: this.normalQueue(),
      input: a.input,
      workflowExecutionTimeout: '0s',
      workflowRunTimeout: '0s',
      workflowTaskTimeout: '10s',
      originalExecutionRunId: this.options.runId,
      identity: this.clientIdentity,
      firstExecutionRunId: this.options.runId,
      attempt: 1,
      firstWorkflowTaskBackoff: '0s',
      ...(a.memo && { memo: { fields: Object.fromEntries(Object.entries(a.memo).map(([k, v]) => [k, jsonPayload(v)])) } }),
      ...(a.searchAttributes && { searchAttributes: searchAttributesJson(a.searchAttributes) }),
      header: {},
      workflowId: this.options.workflowId,
    });
  }

  workflowTaskScheduled(): number {
    // The first task goes to the shared queue; later ones to the worker's sticky queue.
    const taskQueue = this.lastWorkflowTaskCompleted === 0
      ? this.normalQueue()
      : { name: this.stickyQueue, kind: 'TASK_QUEUE_KIND_STICKY', normalName: this.options.taskQueue };
    this.lastWorkflowTaskScheduled = this.add('WORKFLOW_TASK_SCHEDULED', 'workflowTaskScheduledEventAttributes', {
      taskQueue,
      startToCloseTimeout: '10s',
      attempt: 1,
    });
    return this.lastWorkflowTaskScheduled;
  }

  workflowTaskStarted(): number {
    this.lastWorkflowTaskStarted = this.add('WORKFLOW_TASK_STARTED', 'workflowTaskStartedEventAttributes', {
      scheduledEventId: String(this.lastWorkflowTaskScheduled),
      identity: this.workerIdentity,
      requestId: deterministicUuid(this.options.runId, this.events.length + 1),
      historySizeBytes: String(400 + this.events.length * 350),
    });
    this.lastWorkflowTaskStartedTime = this.now;
    return this.lastWorkflowTaskStarted;
  }

  workflowTaskCompleted(sdkMetadata: SdkMetadataJson = {}): number {
    this.lastWorkflowTaskCompleted = this.add('WORKFLOW_TASK_COMPLETED', 'workflowTaskCompletedEventAttributes', {
      scheduledEventId: String(this.lastWorkflowTaskScheduled),
      startedEventId: String(this.lastWorkflowTaskStarted),
      identity: this.workerIdentity,
      sdkMetadata,
      meteringMetadata: {},
    });
    return this.lastWorkflowTaskCompleted;
  }

  /** Scheduled + Started + Completed; the first task records the SDK name, version and core flags. */
  workflowTask(extra: { langUsedFlags?: number[] } = {}): number {
    const first = this.lastWorkflowTaskCompleted === 0;
    this.workflowTaskScheduled();
    this.advance(5);
    this.workflowTaskStarted();
    this.advance(20);
    return this.workflowTaskCompleted({
      ...(first && { coreUsedFlags: CORE_FLAGS }),
      ...(extra.langUsedFlags?.length && { langUsedFlags: extra.langUsedFlags }),
      ...(first && { sdkName: SDK_NAME, sdkVersion: SDK_VERSION }),
    });
  }

  timerStarted(a: { timerId: string; startToFireMs: number }): number {
    return this.add('TIMER_STARTED', 'timerStartedEventAttributes', {
      timerId: a.timerId,
      startToFireTimeout: duration(a.startToFireMs),
      workflowTaskCompletedEventId: String(this.lastWorkflowTaskCompleted),
    });
  }

  timerFired(a: { timerId: string; startedEventId: number }): number {
    return this.add('TIMER_FIRED', 'timerFiredEventAttributes', {
      timerId: a.timerId,
      startedEventId: String(a.startedEventId),
    });
  }

  timerCanceled(a: { timerId: string; startedEventId: number }): number {
    return this.add('TIMER_CANCELED', 'timerCanceledEventAttributes', {
      timerId: a.timerId,
      startedEventId: String(a.startedEventId),
      workflowTaskCompletedEventId: String(this.lastWorkflowTaskCompleted),
      identity: this.workerIdentity,
    });
  }

  workflowExecutionSignaled(a: { signalName: string; input: PayloadsJson; identity?: string }): number {
    return this.add('WORKFLOW_EXECUTION_SIGNALED', 'workflowExecutionSignaledEventAttributes', {
      signalName: a.signalName,
      input: a.input,
      identity: a.identity ?? this.clientIdentity,
      header: {},
    });
  }

  /**
   * The worker accepted an Update (its validator passed). The request travelled as a protocol
   * message with the workflow task whose Scheduled event is `sequencingEventId`; the server writes
   * it here, and on replay Core turns this event back into the request it delivers to the workflow.
   */
  workflowExecutionUpdateAccepted(a: { updateId: string; name: string; args: PayloadsJson; sequencingEventId?: number; identity?: string }): number {
    return this.add('WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'workflowExecutionUpdateAcceptedEventAttributes', {
      protocolInstanceId: a.updateId,
      acceptedRequestMessageId: `${a.updateId}/request`,
      acceptedRequestSequencingEventId: String(a.sequencingEventId ?? this.lastWorkflowTaskScheduled),
      acceptedRequest: {
        meta: { updateId: a.updateId, identity: a.identity ?? this.clientIdentity },
        input: { header: {}, name: a.name, args: a.args },
      },
    });
  }

  workflowExecutionUpdateCompleted(a: { updateId: string; acceptedEventId: number; result: unknown; identity?: string }): number {
    return this.add('WORKFLOW_EXECUTION_UPDATE_COMPLETED', 'workflowExecutionUpdateCompletedEventAttributes', {
      meta: { updateId: a.updateId, identity: a.identity ?? this.clientIdentity },
      acceptedEventId: String(a.acceptedEventId),
      outcome: { success: payloads(a.result) },
    });
  }

  activityTaskScheduled(a: {
    activityId: string;
    activityType: string;
    input: PayloadsJson;
    startToCloseMs: number;
    /** Set in proxyActivities: the server records it as the schedule-to-start limit too. */
    scheduleToCloseMs?: number;
    heartbeatMs?: number;
    retryPolicy: { initialIntervalMs: number; backoffCoefficient: number; maximumIntervalMs: number; maximumAttempts?: number; nonRetryableErrorTypes: string[] };
  }): number {
    const scheduleToClose = a.scheduleToCloseMs === undefined ? '0s' : duration(a.scheduleToCloseMs);
    return this.add('ACTIVITY_TASK_SCHEDULED', 'activityTaskScheduledEventAttributes', {
      activityId: a.activityId,
      activityType: { name: a.activityType },
      taskQueue: this.normalQueue(),
      header: {},
      input: a.input,
      // Unset in proxyActivities: recorded as 0s, i.e. no limit (the run has no timeout either).
      scheduleToCloseTimeout: scheduleToClose,
      scheduleToStartTimeout: scheduleToClose,
      startToCloseTimeout: duration(a.startToCloseMs),
      heartbeatTimeout: duration(a.heartbeatMs ?? 0),
      workflowTaskCompletedEventId: String(this.lastWorkflowTaskCompleted),
      retryPolicy: {
        initialInterval: duration(a.retryPolicy.initialIntervalMs),
        backoffCoefficient: a.retryPolicy.backoffCoefficient,
        maximumInterval: duration(a.retryPolicy.maximumIntervalMs),
        ...(a.retryPolicy.maximumAttempts === undefined ? {} : { maximumAttempts: a.retryPolicy.maximumAttempts }),
        // The protos drop an empty list.
        ...(a.retryPolicy.nonRetryableErrorTypes.length === 0 ? {} : { nonRetryableErrorTypes: a.retryPolicy.nonRetryableErrorTypes }),
      },
      useWorkflowBuildId: true,
    });
  }

  activityTaskStarted(a: { scheduledEventId: number; attempt?: number }): number {
    return this.add('ACTIVITY_TASK_STARTED', 'activityTaskStartedEventAttributes', {
      scheduledEventId: String(a.scheduledEventId),
      identity: this.workerIdentity,
      requestId: deterministicUuid(this.options.runId, this.events.length + 1),
      attempt: a.attempt ?? 1,
    });
  }

  activityTaskCompleted(a: { scheduledEventId: number; startedEventId: number; result: unknown }): number {
    return this.add('ACTIVITY_TASK_COMPLETED', 'activityTaskCompletedEventAttributes', {
      result: payloads(a.result),
      scheduledEventId: String(a.scheduledEventId),
      startedEventId: String(a.startedEventId),
      identity: this.workerIdentity,
    });
  }

  /** An activity's last attempt failed with an ApplicationFailure (its retries are over, or it was not retryable). */
  activityTaskFailed(a: { scheduledEventId: number; startedEventId: number; message: string; type: string; nonRetryable: boolean }): number {
    return this.add('ACTIVITY_TASK_FAILED', 'activityTaskFailedEventAttributes', {
      failure: { message: a.message, source: 'TypeScriptSDK', applicationFailureInfo: { type: a.type, nonRetryable: a.nonRetryable } },
      scheduledEventId: String(a.scheduledEventId),
      startedEventId: String(a.startedEventId),
      identity: this.workerIdentity,
      retryState: a.nonRetryable ? 'RETRY_STATE_NON_RETRYABLE_FAILURE' : 'RETRY_STATE_TIMEOUT',
    });
  }

  upsertWorkflowSearchAttributes(pairs: SearchAttributePair[]): number {
    return this.add('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', 'upsertWorkflowSearchAttributesEventAttributes', {
      workflowTaskCompletedEventId: String(this.lastWorkflowTaskCompleted),
      searchAttributes: searchAttributesJson(pairs),
    });
  }

  workflowExecutionCompleted(a: { result: unknown }): number {
    return this.add('WORKFLOW_EXECUTION_COMPLETED', 'workflowExecutionCompletedEventAttributes', {
      result: payloads(a.result),
      workflowTaskCompletedEventId: String(this.lastWorkflowTaskCompleted),
    });
  }

  build(): HistoryJson {
    return { events: structuredClone(this.events) };
  }
}

/**
 * Loads the JSON the way the SDK does and writes it back: any difference means a field the protos
 * do not know (protobufjs drops unknown fields silently, so a typo would otherwise go unnoticed)
 * or a value in a non-canonical form.
 */
export function assertWellFormed(history: HistoryJson): void {
  const roundTripped: unknown = JSON.parse(historyToJSON(historyFromJSON(history)));
  const differences: string[] = [];
  const walk = (a: unknown, b: unknown, at: string) => {
    if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const k of keys) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    } else if (a !== b) {
      differences.push(`${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
    }
  };
  walk(history, roundTripped, 'history');
  if (differences.length > 0) throw new Error(`history does not survive a proto round trip:\n${differences.slice(0, 20).join('\n')}`);
}

/** A stable UUID-shaped id, so regenerating fixtures gives byte-identical files. */
function deterministicUuid(seed: string, n: number): string {
  let h = 0x811c9dc5;
  const hex: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const ch of `${seed}:${n}:${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    hex.push(h.toString(16).padStart(8, '0'));
  }
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------
// Held-authorization scenarios
// ---------------------------------------------------------------------------------------------

export const WORKFLOW_TYPE = 'heldAuthorization';
export const TASK_QUEUE = 'spend-authorization';
export const ACTIVITY_TYPE = 'resolveHeldDecision';
/** Mirrors `proxyActivities` in workflows/held-authorization.ts; the server records these with the command. */
export const ACTIVITY_OPTIONS = {
  startToCloseMs: 30_000,
  retryPolicy: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, nonRetryableErrorTypes: ['DecisionNotFound'] },
};
export const SIGNAL_NAME = 'approvalDecision';
export const UPDATE_NAME = 'resolve';

/** How the held request ends. */
export type HeldScenario =
  /** The reviewer's Update reaches the running workflow while its timer runs. */
  | { kind: 'update'; outcome: ReviewerOutcome }
  /** `executeUpdateWithStart` before the outbox relay started the workflow: the Update rides on the first task. */
  | { kind: 'update-with-start'; outcome: ReviewerOutcome }
  /** `alreadyResolved`: the decision was resolved outside the workflow first (agent frozen), so the activity changes nothing. */
  | { kind: 'signal'; outcome: ReviewerOutcome; alreadyResolved?: { reasonCode: string; resolvedAt: Date } }
  | { kind: 'timer-fired' }
  | { kind: 'started-after-expiry' };

export interface HeldHistoryOptions {
  decisionId: string;
  runId: string;
  startTime: Date;
  /** How long after the start the hold expires; negative when the workflow started late. */
  expiresInMs: number;
  /** When the reviewer (or operator) acts, after the start. */
  actsAfterMs?: number;
  scenario: HeldScenario;
}

const HOUR = 3_600_000;

/** What activities/held-authorization.ts returns (see src/approvals/resolution.service.ts for the reason codes). */
function resolutionFor(input: ResolveActivityInput, resolvedAt: Date, already?: { reasonCode: string; resolvedAt: Date }): ResolutionSummary {
  const status = input.outcome;
  return {
    decisionId: input.decisionId,
    changed: !already,
    decision: status === 'approved' ? 'approved' : 'denied',
    status,
    reasonCode: already?.reasonCode ?? (status === 'approved' ? null : status === 'expired' ? 'approval_expired' : 'policy_denied'),
    resolvedAt: (already?.resolvedAt ?? resolvedAt).toISOString(),
    resolvedBy: input.reviewer ?? 'system',
  };
}

/**
 * The history a correct `heldAuthorization` run leaves for the scenario: the events follow the
 * commands the workflow issues, in order, task by task.
 */
export function heldAuthorizationHistory(o: HeldHistoryOptions): HistoryJson {
  const startTime = o.startTime;
  const expiresAt = new Date(startTime.getTime() + o.expiresInMs).toISOString();
  const input: HeldAuthorizationInput = { decisionId: o.decisionId, expiresAt };
  const b = new HistoryBuilder({ workflowId: `held-${o.decisionId}`, runId: o.runId, startTime, taskQueue: TASK_QUEUE });
  const s = o.scenario;

  b.workflowExecutionStarted({
    workflowType: WORKFLOW_TYPE,
    input: payloads(input),
    searchAttributes: [
      { key: AgentIdKey, value: AGENT_ID },
      { key: PolicyIdKey, value: fixtureId('pol', 'Fixture') },
      { key: VendorKey, value: 'api.openai.com' },
      { key: AmountMinorKey, value: 12_500 },
      { key: LivemodeKey, value: false },
      { key: ApprovalStatusKey, value: 'pending' },
    ],
    memo: { summary: `12500 usd minor units at api.openai.com for agent ${AGENT_ID}`, reason: 'over the per-transaction limit', expiresAt },
  });

  // Task 1: handlers registered; a timer until expiry unless the hold has already expired.
  b.workflowTask();
  const waitMs = Date.parse(expiresAt) - b.workflowNow.getTime();
  if ((s.kind === 'started-after-expiry') !== waitMs <= 0) throw new Error(`scenario ${s.kind} does not fit expiresInMs ${o.expiresInMs}`);
  const updateId = `resolve-${o.decisionId}`;
  let update: { updateId: string; acceptedEventId: number } | undefined;
  let timerStarted = 0;
  if (s.kind === 'update-with-start') {
    // The validator ran and the handler set the outcome before the wait began, so condition()
    // resolved at once: its timer was started and cancelled within the task, leaving no events.
    update = { updateId, acceptedEventId: b.workflowExecutionUpdateAccepted({ updateId, name: UPDATE_NAME, args: payloads(s.outcome) }) };
  } else if (s.kind !== 'started-after-expiry') {
    timerStarted = b.timerStarted({ timerId: '1', startToFireMs: waitMs });
  }

  // Task 2 (when the workflow had to wait): the input that ends the wait, and the commands it causes.
  let activityInput: ResolveActivityInput;
  switch (s.kind) {
    case 'signal': {
      b.advance(o.actsAfterMs ?? 10 * 60_000);
      b.workflowExecutionSignaled({ signalName: SIGNAL_NAME, input: payloads(s.outcome) });
      b.workflowTask({ langUsedFlags: [LANG_FLAG_SINGLE_BATCH] });
      b.timerCanceled({ timerId: '1', startedEventId: timerStarted });
      activityInput = { decisionId: o.decisionId, outcome: s.outcome.outcome, note: s.outcome.note ?? null, reviewer: s.outcome.reviewer ?? null, via: s.outcome.via ?? 'operator' };
      break;
    }
    case 'update': {
      b.advance(o.actsAfterMs ?? 10 * 60_000);
      // A speculative task carries the request; its events are written when the worker accepts.
      b.workflowTask();
      update = { updateId, acceptedEventId: b.workflowExecutionUpdateAccepted({ updateId, name: UPDATE_NAME, args: payloads(s.outcome) }) };
      b.timerCanceled({ timerId: '1', startedEventId: timerStarted });
      activityInput = { decisionId: o.decisionId, outcome: s.outcome.outcome, note: s.outcome.note ?? null, reviewer: s.outcome.reviewer ?? null, via: 'api' };
      break;
    }
    case 'update-with-start': {
      activityInput = { decisionId: o.decisionId, outcome: s.outcome.outcome, note: s.outcome.note ?? null, reviewer: s.outcome.reviewer ?? null, via: 'api' };
      break;
    }
    case 'timer-fired': {
      b.advance(Math.max(0, Date.parse(expiresAt) - b.clock.getTime()));
      b.timerFired({ timerId: '1', startedEventId: timerStarted });
      b.workflowTask();
      activityInput = { decisionId: o.decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' };
      break;
    }
    case 'started-after-expiry': {
      activityInput = { decisionId: o.decisionId, outcome: 'expired', note: null, reviewer: null, via: 'system' };
      break;
    }
  }

  // The one activity (seq 1, so activity id "1"), then the final task.
  const scheduled = b.activityTaskScheduled({ activityId: '1', activityType: ACTIVITY_TYPE, input: payloads(activityInput), ...ACTIVITY_OPTIONS });
  b.advance(40);
  const started = b.activityTaskStarted({ scheduledEventId: scheduled });
  b.advance(25);
  const result = resolutionFor(activityInput, b.clock, s.kind === 'signal' ? s.alreadyResolved : undefined);
  b.activityTaskCompleted({ scheduledEventId: scheduled, startedEventId: started, result });
  b.workflowTask();
  b.upsertWorkflowSearchAttributes([{ key: ApprovalStatusKey, value: result.status }]);
  // The Update handler returns once the result is set; the workflow waits for it (allHandlersFinished).
  if (update) b.workflowExecutionUpdateCompleted({ updateId: update.updateId, acceptedEventId: update.acceptedEventId, result });
  b.workflowExecutionCompleted({ result });
  return b.build();
}

const T0 = new Date('2025-03-04T09:30:00.000Z');
/** Ids shaped like src/kernel/ids.ts makes them (prefix, underscore, 24 base62 characters). */
function fixtureId(prefix: string, name: string): string {
  return `${prefix}_Fx${name}`.padEnd(prefix.length + 1 + 24, '0');
}
const AGENT_ID = fixtureId('agt', 'Fixture');

/** The fixtures in test/histories/, by file name (without `.json`). */
export const HELD_SCENARIOS: Record<string, HeldHistoryOptions> = {
  'approved-by-update': {
    decisionId: fixtureId('dec', 'UpdateApproved'),
    runId: '0195a1b2-0001-7000-8000-000000000001',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    scenario: { kind: 'update', outcome: { outcome: 'approved', note: 'known vendor, within budget', reviewer: 'usr_reviewer_1' } },
  },
  'approved-by-update-with-start': {
    decisionId: fixtureId('dec', 'UpdateWithStart'),
    runId: '0195a1b2-0007-7000-8000-000000000007',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    scenario: { kind: 'update-with-start', outcome: { outcome: 'approved', reviewer: 'usr_reviewer_2' } },
  },
  'approved-by-signal': {
    decisionId: fixtureId('dec', 'SignalApproved'),
    runId: '0195a1b2-0002-7000-8000-000000000002',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    scenario: { kind: 'signal', outcome: { outcome: 'approved', note: 'approved from the Temporal UI', reviewer: 'ops@example.com' } },
  },
  'denied-by-signal': {
    decisionId: fixtureId('dec', 'SignalDenied'),
    runId: '0195a1b2-0003-7000-8000-000000000003',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    scenario: { kind: 'signal', outcome: { outcome: 'denied', note: 'vendor not allowed', reviewer: 'ops@example.com' } },
  },
  expired: {
    decisionId: fixtureId('dec', 'TimerExpired'),
    runId: '0195a1b2-0004-7000-8000-000000000004',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    scenario: { kind: 'timer-fired' },
  },
  'started-after-expiry': {
    decisionId: fixtureId('dec', 'LateStart'),
    runId: '0195a1b2-0005-7000-8000-000000000005',
    startTime: T0,
    expiresInMs: -5 * 60_000,
    scenario: { kind: 'started-after-expiry' },
  },
  'agent-frozen': {
    decisionId: fixtureId('dec', 'AgentFrozen'),
    runId: '0195a1b2-0006-7000-8000-000000000006',
    startTime: T0,
    expiresInMs: 24 * HOUR,
    actsAfterMs: 2 * 60_000,
    // What WorkflowGateway.notifyResolved sends after the agent was frozen; the decision is already denied.
    scenario: {
      kind: 'signal',
      outcome: { outcome: 'denied', reviewer: 'system', via: 'operator' },
      alreadyResolved: { reasonCode: 'agent_frozen', resolvedAt: new Date(T0.getTime() + 2 * 60_000 - 150) },
    },
  },
};
