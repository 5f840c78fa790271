import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

export const TRACING_SERVICE_NAME = 'spend-auth';

/** The process's tracer provider, once tracing is on; the worker hands its processor to the workflow span sink. */
export interface Tracing {
  /** Every span ends here, workflow spans (copied out of the sandbox by the worker's sink) included. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

/**
 * Registers a tracer provider for the whole process: spans go to the OTLP/HTTP collector at
 * `endpoint` (`<endpoint>/v1/traces`), or to the given processor (tests). Context follows async
 * calls (AsyncLocalStorage) and travels in W3C `traceparent` headers: into the API from a caller,
 * and through Temporal headers to workflows and activities. Only loaded when tracing is on.
 */
export function startTracing(opts: { endpoint?: string | undefined; spanProcessor?: SpanProcessor }): Tracing {
  const spanProcessor =
    opts.spanProcessor ??
    (opts.endpoint
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` }))
      : undefined);
  if (!spanProcessor) throw new TypeError('startTracing needs an endpoint or a span processor');
  const resource = new Resource({ 'service.name': TRACING_SERVICE_NAME });
  // Explicit sampler: the SDK would otherwise read OTEL_TRACES_SAMPLER from the environment (config.ts reads it, nothing else).
  const provider = new BasicTracerProvider({ resource, sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable(), propagator: new W3CTraceContextPropagator() });
  return {
    spanProcessor,
    resource,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
