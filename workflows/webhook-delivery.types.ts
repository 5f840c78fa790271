/** Failure types of a webhook attempt that retrying cannot fix; shared by the workflow and its activity. */
export const PERMANENT_WEBHOOK_FAILURES = ['WebhookPermanentFailure', 'WebhookUrlRefused', 'WebhookEndpointGone', 'DeliveryNotFound'];
