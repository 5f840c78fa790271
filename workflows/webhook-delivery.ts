import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook-delivery.js';
import { PERMANENT_WEBHOOK_FAILURES } from './webhook-delivery.types.js';


const { deliverWebhook } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  // Exponential backoff from 30 s to hourly, for up to three days in all.
  scheduleToCloseTimeout: '3 days',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '1 hour', nonRetryableErrorTypes: PERMANENT_WEBHOOK_FAILURES },
});
const { markWebhookFailed } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface WebhookDeliveryInput {
  deliveryId: string;
}

/** One event to one endpoint: retried attempts of a signed POST; every attempt is recorded by the activity. */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'delivered' | 'failed'> {
  try {
    const result = await deliverWebhook(input);
    // A delivery already settled is reported as it was settled, never as delivered by default.
    return result.status === 'already_completed' && result.deliveryStatus === 'failed' ? 'failed' : 'delivered';
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await markWebhookFailed({ deliveryId: input.deliveryId, reason: err.cause?.message ?? err.message });
    return 'failed';
  }
}
