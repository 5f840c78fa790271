import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { createRouteMatcher } from './route.js';
import { ROUTES } from './routes/index.js';

/**
 * One server span per HTTP request, active while the request is handled, so the engine calls it
 * makes (update-with-start, signals) are its children. A caller's `traceparent` makes it a child
 * of the caller's trace. Attributes: method, route pattern, path, status, request id; never a
 * header, query string or body. Mounted only when tracing is on.
 */
export function traceRequests(tracer = trace.getTracer('spend-auth-http')): RequestHandler {
  const matchRoute = createRouteMatcher(ROUTES);
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0] ?? '/';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': path, request_id: req.requestId } }, parent);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = matchRoute(req.method, path);
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (!res.writableFinished) span.setAttribute('http.aborted', true);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span), next);
  };
}
