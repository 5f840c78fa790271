import { z } from 'zod';

export const healthSchema = z.object({ status: z.literal('ok') }).describe('Liveness: the process is up.');
export type HealthView = z.infer<typeof healthSchema>;

export const readinessSchema = z
  .object({
    status: z
      .enum(['ready', 'degraded', 'unavailable'])
      .describe(
        '`ready` when the database answers (HTTP 200); `degraded` when it does but the workflow engine is down (HTTP 200: authorize works, held requests wait and approve answers 503); `unavailable` when the database does not answer (HTTP 503)',
      ),
    database: z.enum(['up', 'down']),
    workflow_engine: z.enum(['up', 'down', 'unknown']).describe('Reported, never required: authorize works without it'),
    outbox: z
      .object({
        pending: z.number().int().nonnegative().describe('Events and workflow starts not yet relayed'),
        oldest_age_seconds: z.number().int().nonnegative().describe('Age of the oldest of them'),
      })
      .optional()
      .describe('Absent when the database is down'),
  })
  .describe('Readiness: the database, the workflow engine and the outbox lag.');
export type ReadinessView = z.infer<typeof readinessSchema>;
