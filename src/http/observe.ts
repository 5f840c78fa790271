import type { RequestHandler } from 'express';
import type { Logger } from '../kernel/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { createRouteMatcher } from './route.js';
import { ROUTES } from './routes/index.js';

/** Probes and scrapes arrive every few seconds: logged at debug so they do not drown the rest. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
/** nginx's code for a client that went away before the answer. */
const CLIENT_CLOSED = 499;

/**
 * One log line and one histogram observation per request, when the response is done: request id,
 * account (once authenticated), method, route pattern, status and latency. Never a header, query
 * string or body, so a key, secret or token cannot reach the logs from here.
 */
export function observeRequests(opts: { metrics: Metrics; log?: Logger | undefined }): RequestHandler {
  const matchRoute = createRouteMatcher(ROUTES);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = req.originalUrl.split('?')[0] ?? '/';
      // The pattern, never the raw path: ids would make one series per object.
      const route = matchRoute(req.method, path) ?? 'unmatched';
      const aborted = !res.writableFinished;
      const status = aborted && !res.headersSent ? CLIENT_CLOSED : res.statusCode;
      opts.metrics.httpRequestDuration.observe({ method: req.method, route, status: String(status) }, seconds);
      if (!opts.log) return;
      const line = {
        request_id: req.requestId,
        method: req.method,
        route,
        path,
        status,
        latency_ms: Math.round(seconds * 10_000) / 10,
        ...(req.caller ? { account_id: req.caller.accountId, livemode: req.caller.livemode, key_id: req.caller.keyId } : {}),
        ...(aborted ? { aborted: true } : {}),
      };
      if (status >= 500) opts.log.error(line, 'request failed');
      else if (QUIET_ROUTES.has(route)) opts.log.debug(line, 'request');
      else opts.log.info(line, 'request');
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
