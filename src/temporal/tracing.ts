import { createRequire } from 'node:module';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from '../observability/tracing.js';

const require = createRequire(import.meta.url);

/**
 * The workflow interceptors of @temporalio/interceptors-opentelemetry, bundled into the workflow
 * code only when tracing is on (their spans are made inside the sandbox and copied out through
 * the `exporter` sink). They add no commands: histories replay with or without them.
 */
export const WORKFLOW_TRACING_MODULE = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** What the worker adds when tracing is on: the activity span interceptor and the sink workflow spans leave by. */
export async function workerTracing(tracing: Pick<Tracing, 'spanProcessor' | 'resource'>): Promise<{ activity: ActivityInterceptorsFactory[]; sinks: InjectedSinks<OpenTelemetrySinks> }> {
  // Loaded only when tracing is on: the package brings the OpenTelemetry SDK with it.
  const otel = await import('@temporalio/interceptors-opentelemetry');
  const sink = otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  return {
    activity: [(ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) })],
    sinks: { exporter: { export: { fn: (info, spans) => sink.export.fn(spanInfo(info), spans) } } },
  };
}

/**
 * What of the workflow's info each workflow span carries. The interceptors' sink would copy all of
 * it, memo (amount, vendor, the agent's reason) and search attributes included, to the tracing
 * backend: ids only.
 */
function spanInfo(info: WorkflowInfo): WorkflowInfo {
  const { workflowId, runId, workflowType, taskQueue, namespace, attempt } = info;
  return { workflowId, runId, workflowType, taskQueue, namespace, attempt } as WorkflowInfo;
}

/** The client's span per engine call (start, update-with-start, signal…), its context sent in Temporal headers. */
export async function clientTracingInterceptors(): Promise<WorkflowClientInterceptor[]> {
  const otel = await import('@temporalio/interceptors-opentelemetry');
  return [new otel.OpenTelemetryWorkflowClientInterceptor()];
}
