import type { ReadinessView } from './health.view.js';

/**
 * /readyz's verdict: the database decides whether the API can serve (503 without it); an engine
 * known to be down makes it `degraded`, still HTTP 200 so a load balancer keeps the API, which
 * authorizes without the engine.
 */
export function readiness(database: 'up' | 'down', engine: ReadinessView['workflow_engine']): ReadinessView['status'] {
  if (database === 'down') return 'unavailable';
  return engine === 'down' ? 'degraded' : 'ready';
}
