import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/database.js';
import { countDeadLetters, outboxLag } from '../outbox/outbox.repository.js';
import { unsealedLag } from '../audit/audit.repository.js';
import { countUnsettledReports } from '../usage/usage-reports.repository.js';

/** Up to the largest AUTHORIZE_BATCH_SIZE. */
const DECISION_BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Long polls last up to 30 s, so the buckets reach that far. */
export const HTTP_DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** One database read serves every outbox gauge of a scrape. */
const OUTBOX_LAG_REUSE_MS = 1_000;

export type DecisionOutcome = 'approved' | 'denied' | 'held';
export type WebhookAttemptResult = 'delivered' | 'retry' | 'failed';
/** How a rail's authorization request was answered (src/rails/): `timeout` is the connection's `on_timeout` answer. */
export type RailAnswerOutcome = 'matched' | 'approved' | 'declined' | 'timeout' | 'replayed';
const RAIL_ANSWER_OUTCOMES: readonly RailAnswerOutcome[] = ['matched', 'approved', 'declined', 'timeout', 'replayed'];

/**
 * The service's Prometheus metrics, in a registry of their own (tests build several apps in one
 * process). Labels never carry account, agent or key ids: the endpoint is unauthenticated.
 */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  decisions: Counter<'outcome'>;
  webhookAttempts: Counter<'result'>;
  rateLimitRejections: Counter;
  railAnswers: Counter<'rail' | 'outcome'>;
  decisionBatchSize: Histogram;
  recordDecision(outcome: DecisionOutcome): void;
  recordDecisionBatch(size: number): void;
  /** Where one batch's time went, by phase (seconds). */
  recordDecisionBatchPhases(phases: Readonly<Record<string, number>>): void;
  recordWebhookAttempt(result: WebhookAttemptResult): void;
  recordRateLimitRejection(): void;
  recordRailAnswer(rail: string, outcome: RailAnswerOutcome): void;
  /** A spend request's wait before its work started (admission control), and whether it was shed for it. */
  recordAdmission(route: string, waitedMs: number, shed: boolean): void;
}

export interface MetricsOptions {
  /** Read on scrape for the outbox gauges; without it they are absent. */
  db?: Db;
  /** Node.js process metrics (CPU, memory, event loop): once per process, not per test app. */
  processMetrics?: boolean;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS_SECONDS,
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'decisions_total',
    help: 'Authorization decisions made (POST /v1/authorize; replays excluded), by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process (the worker), by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 rate_limited',
    registers: [registry],
  });
  const railAnswers = new Counter({
    name: 'rail_answers_total',
    help: 'Authorization requests of rails that ask first, by rail and how they were answered (timeout: the connection\'s on_timeout answer, given at the deadline)',
    labelNames: ['rail', 'outcome'] as const,
    registers: [registry],
  });
  const decisionBatchSize = new Histogram({
    name: 'decision_batch_size',
    help: 'Spend decisions committed together in one transaction (group commit; docs/operations.md)',
    buckets: DECISION_BATCH_BUCKETS,
    registers: [registry],
  });
  const decisionBatchPhases = new Histogram({
    name: 'decision_batch_phase_seconds',
    help: "Where a group commit batch's time went: connect (a pool connection and BEGIN), lock (its agents), read (spend and rule 1's approvals), decide (in memory, with any early writes), write (its rows), commit",
    labelNames: ['phase'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const queueTime = new Histogram({
    name: 'request_queue_seconds',
    help: 'How long a spend request waited between its arrival and the start of its work (admission control; docs/operations.md); route authorize: POST /v1/authorize and the quick-start POST /authorize',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const shed = new Counter({
    name: 'shed_total',
    help: "Requests shed under load instead of served late, by route and reason (authorize, queue: 503 past MAX_QUEUE_MS, never decided; stripe_issuing, deadline: the connection's on_timeout answer)",
    labelNames: ['route', 'reason'] as const,
    registers: [registry],
  });
  // Zero-valued series from the start, so rates and alerts work before the first event.
  shed.inc({ route: 'authorize', reason: 'queue' }, 0);
  shed.inc({ route: 'stripe_issuing', reason: 'deadline' }, 0);
  for (const outcome of RAIL_ANSWER_OUTCOMES) railAnswers.inc({ rail: 'stripe_issuing', outcome }, 0);
  for (const outcome of ['approved', 'denied', 'held'] as const) decisions.inc({ outcome }, 0);
  for (const result of ['delivered', 'retry', 'failed'] as const) webhookAttempts.inc({ result }, 0);

  if (opts.db) {
    const db = opts.db;
    let last: { at: number; lag: Promise<{ pending: number; oldest_age_seconds: number } | undefined> } | undefined;
    const lag = () => {
      if (!last || Date.now() - last.at > OUTBOX_LAG_REUSE_MS) {
        // A database that does not answer leaves the gauges out of this scrape rather than failing it.
        last = { at: Date.now(), lag: outboxLag(db, new Date()).catch(() => undefined) };
      }
      return last.lag;
    };
    /** A gauge read from the database at scrape; a database that does not answer leaves it out of that scrape. */
    const dbGauge = (name: string, help: string, read: () => Promise<number | undefined>) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          const n = await read().catch(() => undefined);
          if (n !== undefined) this.set(n);
        },
      });
    dbGauge('outbox_pending', 'Outbox rows not yet carried to the workflow engine', async () => (await lag())?.pending);
    dbGauge('outbox_oldest_age_seconds', 'Age of the oldest outbox row not yet carried (0 when none): the relay lag', async () => (await lag())?.oldest_age_seconds);
    let sealing: { at: number; lag: Promise<{ records: number; oldest_age_seconds: number } | undefined> } | undefined;
    const sealLag = () => {
      if (!sealing || Date.now() - sealing.at > OUTBOX_LAG_REUSE_MS) sealing = { at: Date.now(), lag: unsealedLag(db, new Date()).catch(() => undefined) };
      return sealing.lag;
    };
    dbGauge('audit_unsealed_records', 'Audit records committed but not yet sealed into their chain: the sealer lag', async () => (await sealLag())?.records);
    dbGauge('audit_unsealed_oldest_age_seconds', 'Age of the oldest audit record not yet sealed (0 when none)', async () => (await sealLag())?.oldest_age_seconds);
    dbGauge('outbox_dead_letters', 'Outbox rows dead-lettered after repeated failures of their own, waiting for an operator (alert when above 0)', () => countDeadLetters(db));
    dbGauge(
      'usage_reports_unsettled',
      'Monthly usage reports not accepted by the billing meter (pending retries or refused): alert when one stays above 0',
      () => countUnsettledReports(db),
    );
  }
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });

  return {
    registry,
    httpRequestDuration,
    decisions,
    webhookAttempts,
    rateLimitRejections,
    railAnswers,
    decisionBatchSize,
    recordDecision: (outcome) => decisions.inc({ outcome }),
    recordDecisionBatch: (size) => decisionBatchSize.observe(size),
    recordDecisionBatchPhases: (phases) => {
      for (const [phase, seconds] of Object.entries(phases)) decisionBatchPhases.observe({ phase }, seconds);
    },
    recordRailAnswer: (rail, outcome) => {
      railAnswers.inc({ rail, outcome });
      if (outcome === 'timeout') shed.inc({ route: rail, reason: 'deadline' });
    },
    recordWebhookAttempt: (result) => webhookAttempts.inc({ result }),
    recordRateLimitRejection: () => rateLimitRejections.inc(),
    recordAdmission: (route, waitedMs, wasShed) => {
      queueTime.observe({ route }, waitedMs / 1000);
      if (wasShed) shed.inc({ route, reason: 'queue' });
    },
  };
}

const APP_METRICS = 'metrics';

/** The metrics of the app serving this request (set by createApp). */
export function metricsOf(req: Request): Metrics | undefined {
  return req.app.locals[APP_METRICS] as Metrics | undefined;
}

/** For the rate limiter: counts one 429, in the registry of the app that refused the request. */
export function recordRateLimitRejection(req: Request): void {
  metricsOf(req)?.recordRateLimitRejection();
}

export function attachMetrics(locals: Record<string, unknown>, metrics: Metrics): void {
  locals[APP_METRICS] = metrics;
}

/** `GET /metrics`: Prometheus text format. */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.registry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.registry.contentType).send(body);
  };
}
