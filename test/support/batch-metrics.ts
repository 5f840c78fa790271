import type { TestContext } from './context.js';

/** What a series of /metrics reads, NaN when the service does not expose it. */
const reader = (text: string) => (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/**
 * decision_batch_size from the service's /metrics: batches committed (`count`), the decisions they
 * held (`sum`), and how many of them held one decision alone (`single`, the `le="1"` bucket).
 */
export async function batchMetrics(ctx: Pick<TestContext, 'raw'>): Promise<{ count: number; sum: number; single: number }> {
  const read = reader((await ctx.raw('/metrics')).text);
  return { count: read('decision_batch_size_count'), sum: read('decision_batch_size_sum'), single: read('decision_batch_size_bucket{le="1"}') };
}
