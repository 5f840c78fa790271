import { pingDatabase } from '../../db/connect.js';
import { outboxLag } from '../../outbox/outbox.repository.js';
import { sendDashboardPage } from '../dashboard.js';
import { renderDocsPage } from '../docs-page.js';
import { unrecognizedRoute } from '../errors.js';
import { healthSchema, readinessSchema, type ReadinessView } from '../health.view.js';
import { openApiDocumentSchema } from '../openapi-document.view.js';
import { readiness } from '../readiness.js';
import { route, SENT } from '../route.js';

let docsPage: string | undefined;

/** Public: probes, metrics and this reference; no key needed. */
export const operationsRoutes = [
  route({
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    roles: 'public',
    summary: 'Liveness: the process is up',
    response: { status: 200, description: 'The process is up', schema: healthSchema },
    handler: () => ({ status: 'ok' as const }),
  }),
  route({
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    roles: 'public',
    summary: 'Readiness: the database answers; reports the workflow engine and the outbox lag',
    response: { status: 200, description: 'Ready, or `degraded` while the workflow engine is down (503 with the same object when the database is down)', schema: readinessSchema },
    handler: async ({ deps, res }) => {
      let database: 'up' | 'down' = 'up';
      let outbox: ReadinessView['outbox'];
      try {
        await pingDatabase(deps.db);
        outbox = await outboxLag(deps.db, new Date());
      } catch {
        database = 'down';
      }
      // The engine's state is reported, never required (authorize works without it), and never waited for.
      const engine = await deps.engine.current();
      res.status(database === 'up' ? 200 : 503).json({ status: readiness(database, engine), database, workflow_engine: engine, outbox } satisfies ReadinessView);
      return SENT;
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    roles: 'public',
    summary: 'Prometheus metrics (text exposition format); no per-account data',
    response: { status: 200, description: 'Prometheus text format 0.0.4', contentType: 'text/plain' },
    handler: async ({ deps, res }) => {
      const body = await deps.metrics.registry.metrics();
      res.setHeader('Cache-Control', 'no-store');
      res.type(deps.metrics.registry.contentType).send(body);
      return SENT;
    },
  }),
  route({
    method: 'get',
    path: '/docs',
    tag: 'Operations',
    roles: 'public',
    summary: 'This API reference as an HTML page',
    response: { status: 200, description: 'HTML', contentType: 'text/html' },
    handler: ({ deps, res }) => {
      docsPage ??= renderDocsPage(deps.openApi());
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'");
      res.type('html').send(docsPage);
      return SENT;
    },
  }),
  route({
    method: 'get',
    path: '/dashboard',
    tag: 'Operations',
    roles: 'public',
    summary: 'The reviewer dashboard (a static page; it calls /v1 with a key pasted into it)',
    description: 'Its scripts and styles are served under /dashboard/. The page itself holds no data and needs no key.',
    response: { status: 200, description: 'HTML', contentType: 'text/html' },
    handler: ({ deps, req, res }) => {
      // A package without the dashboard's files serves no page: the unknown-route answer.
      if (!deps.dashboardDir) throw unrecognizedRoute(req);
      sendDashboardPage(res, deps.dashboardDir);
      return SENT;
    },
  }),
  route({
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'Operations',
    roles: 'public',
    summary: 'This OpenAPI 3.1 document',
    response: { status: 200, description: 'The document', schema: openApiDocumentSchema },
    handler: ({ deps, res }) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      return deps.openApi();
    },
  }),
];
