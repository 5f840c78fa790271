/**
 * OpenTelemetry tracing on a real Temporal server: the API opens a server span per request, the
 * gateway's client interceptor a span per engine call, the workflow interceptors (bundled into the
 * workflow code) spans for the run, the Update and each activity it schedules, and the activity
 * interceptor a span for each execution; context travels in Temporal headers. Spans go to an
 * in-memory exporter here, to an OTLP collector in production (OTEL_EXPORTER_OTLP_ENDPOINT).
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { workerTracing } from '../../src/temporal/tracing.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, workflowBundle, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('tracing');

describe.skipIf(!mode)('one trace from the API call through the workflow to the activity', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let stack: EngineStack;
  let acct: TestAccount;

  beforeAll(async () => {
    tracing = startTracing({ spanProcessor: new SimpleSpanProcessor(exporter) });
    stack = await openEngineStack(mode!, { tracing });
    acct = await stack.ctx.account('growth');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await tracing?.shutdown();
  });
  beforeEach(() => exporter.reset());

  async function hold(): Promise<string> {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agent = await acct.test.post('/v1/agents', { name: 'traced bot', policy_id: p.body.id });
    const res = await acct.test.post('/v1/authorize', { agent_id: agent.body.id, amount: 500, currency: 'USD', vendor: 'shop.example' });
    expect(res.body).toMatchObject({ decision: 'held' });
    return res.body.decision_id as string;
  }

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string, traceId?: string) => spans().find((s) => s.name === name && (!traceId || s.spanContext().traceId === traceId));
  const parentOf = (span: ReadableSpan) => span.parentSpanId;
  const idOf = (span: ReadableSpan) => span.spanContext().spanId;

  test('approved before the relay carried the hold: POST …/approve → UpdateWithStart → RunWorkflow and HandleUpdate → StartActivity → RunActivity, one trace id', { timeout: 60_000 }, async () => {
    // The relay waits, so the reviewer's update-with-start is what starts the workflow.
    await stack.relay.stop();
    try {
      const id = await hold();
      const approved = await acct.test.post(`/v1/approvals/${id}/approve`, { note: 'traced' });
      expect(approved.status).toBe(200);
      await stack.server.env.client.workflow.getHandle(heldWorkflowId(id)).result();

      const http = await until('the server span of the approval', () => spans().find((s) => s.kind === SpanKind.SERVER && /^POST \/v1\/approvals\/.+\/approve$/.test(s.name)));
      const traceId = http.spanContext().traceId;
      expect(http.attributes['http.response.status_code']).toBe(200);
      expect(parentOf(http)).toBeUndefined();
      const [client, run, validate, handle, schedule, execute] = await until('every span of the trace', () => {
        const found = ['UpdateWithStartWorkflow:resolve', 'RunWorkflow:heldAuthorization', 'ValidateUpdate:resolve', 'HandleUpdate:resolve', 'StartActivity:resolveHeldDecision', 'RunActivity:resolveHeldDecision'].map((n) => named(n, traceId));
        return found.every(Boolean) ? (found as [ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan]) : undefined;
      });
      expect(client.attributes.temporalWorkflowId).toBe(heldWorkflowId(id));
      expect(parentOf(client)).toBe(idOf(http));
      // The workflow started by the update-with-start, and the Update it carried, are the client span's children.
      expect(parentOf(run)).toBe(idOf(client));
      expect(parentOf(validate)).toBe(idOf(client));
      expect(parentOf(handle)).toBe(idOf(client));
      // The activity is scheduled by the workflow's main loop, and runs on the worker as a child of that.
      expect(parentOf(schedule)).toBe(idOf(run));
      expect(parentOf(execute)).toBe(idOf(schedule));
      expect(execute.attributes.temporalWorkflowId).toBe(heldWorkflowId(id));
      // Workflow spans carry the run's ids, never its memo or search attributes (amount, vendor, reason).
      expect(run.attributes).toMatchObject({ workflowId: heldWorkflowId(id), workflowType: 'heldAuthorization', taskQueue: stack.settings.taskQueue });
      expect(Object.keys(run.attributes).sort()).toEqual(['attempt', 'namespace', 'runId', 'taskQueue', 'workflowId', 'workflowType']);
      expect(JSON.stringify(handle.attributes)).not.toContain('shop.example');
      for (const s of [client, run, validate, handle, schedule, execute]) expect(s.spanContext().traceId).toBe(traceId);
    } finally {
      stack.relay.start();
    }
  });

  test('the usual order, the relay first: the run and its activity are in the relay start\'s trace; the approval\'s trace holds the Update', { timeout: 60_000 }, async () => {
    const id = await hold();
    const started = await until('the relay started the workflow', () => spans().find((s) => s.name === 'StartWorkflow:heldAuthorization' && s.attributes.temporalWorkflowId === heldWorkflowId(id)));
    // The relay works outside any request: its start opens a trace of its own.
    expect(parentOf(started)).toBeUndefined();
    const approved = await acct.test.post(`/v1/approvals/${id}/approve`, {});
    expect(approved.status).toBe(200);
    const handleWf = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    await handleWf.result();

    const relayTrace = started.spanContext().traceId;
    const run = await until('the run in the relay trace', () => named('RunWorkflow:heldAuthorization', relayTrace));
    const execute = await until('the activity in the relay trace', () => named('RunActivity:resolveHeldDecision', relayTrace));
    expect(parentOf(run)).toBe(idOf(started));
    expect(parentOf(named('StartActivity:resolveHeldDecision', relayTrace)!)).toBe(idOf(run));
    expect(parentOf(execute)).toBe(idOf(named('StartActivity:resolveHeldDecision', relayTrace)!));

    const http = spans().find((s) => s.kind === SpanKind.SERVER && /approve$/.test(s.name))!;
    const client = await until('the update in the approval trace', () => named('UpdateWithStartWorkflow:resolve', http.spanContext().traceId));
    expect(parentOf(client)).toBe(idOf(http));
    expect(parentOf(await until('the handled update', () => named('HandleUpdate:resolve', http.spanContext().traceId)))).toBe(idOf(client));

    // Tracing on or off is no workflow change: the traced run replays without the interceptors, and with them.
    const history = await handleWf.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(false), replayName: 'traced-run-untraced' }, history, heldWorkflowId(id));
    const { sinks } = await workerTracing(tracing);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(true), sinks, replayName: 'traced-run-traced' }, history, heldWorkflowId(id));
  });

  test('a caller\'s traceparent makes the request span its child', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const res = await acct.test.get('/v1/agents', { traceparent: `00-${traceId}-${parentId}-01` });
    expect(res.status).toBe(200);
    const http = await until('the request span', () => spans().find((s) => s.kind === SpanKind.SERVER && s.name === 'GET /v1/agents'));
    expect(http.spanContext().traceId).toBe(traceId);
    expect(parentOf(http)).toBe(parentId);
    expect(http.attributes).toMatchObject({ 'http.route': '/v1/agents', 'http.request.method': 'GET', 'http.response.status_code': 200 });
    // Never a header: the caller's key stays out of the span.
    expect(JSON.stringify(http.attributes)).not.toContain(acct.test.key);
  });
});
