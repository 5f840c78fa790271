import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../src/db/database.js';
import { findEvent } from '../src/events/events.repository.js';
import { encryptionKey } from '../src/kernel/encryption-key.js';
import { endpointSecretCipher, endpointSecretScope } from '../src/webhooks/endpoint-secret.js';
import { postPinned } from '../src/webhooks/http-post.js';
import { buildSignedDelivery, DELIVERY_HEADER, EVENT_HEADER, PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER } from '../src/webhooks/signature.js';
import { resolveSafeTarget, UnsafeUrlError, withoutPinnedAddress, type HostResolver } from '../src/webhooks/ssrf.js';
import { findDelivery, findEndpointById, markDeliveryFailed, recordAttempt } from '../src/webhooks/webhooks.repository.js';

export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;

export interface WebhookActivityDeps {
  db: Db;
  allowPrivateUrls: boolean;
  attemptTimeoutMs?: number;
  /** How host names are resolved, once per attempt (the system's lookup unless a test controls DNS). */
  resolve?: HostResolver;
  /** Told of every recorded attempt (the worker's `webhook_attempts_total`). */
  onAttempt?: (result: 'delivered' | 'retry' | 'failed') => void;
}

export interface DeliveryInput {
  deliveryId: string;
}

/** 2xx delivers; any other 4xx but 408 and 429 is permanent; everything else is retried. */
export function classifyStatus(status: number): 'delivered' | 'permanent' | 'retry' {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'permanent';
  return 'retry';
}

function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * Activities of the webhook-delivery workflow. The secret is loaded, opened (it is stored sealed,
 * with the process's encryption key: kernel/encryption-key.ts) and used here only, never in history.
 */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const permanent = async (deliveryId: string, type: string, message: string) => {
    await markDeliveryFailed(deps.db, deliveryId, message, new Date());
    return ApplicationFailure.nonRetryable(message, type);
  };

  return {
    /** One attempt: sign, POST to the pinned address, record the attempt, classify the answer. */
    async deliverWebhook({ deliveryId }: DeliveryInput): Promise<{ status: 'delivered' | 'already_completed'; statusCode: number | null; deliveryStatus?: 'delivered' | 'failed' }> {
      const delivery = await findDelivery(deps.db, deliveryId);
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
      // Settled before this attempt (an earlier attempt whose answer was lost, or failed for good): say which.
      if (delivery.status !== 'pending') return { status: 'already_completed', statusCode: delivery.last_status_code, deliveryStatus: delivery.status === 'delivered' ? 'delivered' : 'failed' };
      const endpoint = await findEndpointById(deps.db, delivery.endpoint_id);
      if (!endpoint || endpoint.deleted_at || !endpoint.enabled) {
        throw await permanent(deliveryId, 'WebhookEndpointGone', 'the endpoint was deleted or disabled');
      }
      const event = await findEvent(deps.db, null, delivery.event_id);
      if (!event) throw await permanent(deliveryId, 'WebhookEndpointGone', 'the event no longer exists');
      const secrets = endpointSecretCipher(encryptionKey());
      const scope = endpointSecretScope(endpoint);
      const secret = secrets.open(endpoint.secret_sealed, scope);
      // Keys are bound to the database, so only a row edited or copied by hand gets here: nothing can sign it.
      if (secret === undefined) throw await permanent(deliveryId, 'WebhookSecretUnreadable', "the endpoint's secret does not open with the server's key");

      const attemptedAt = new Date();
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let target;
      try {
        // Checked again at every attempt: DNS may have changed since the endpoint was created. The
        // POST then connects to the address checked here, never resolving the name again (rebinding).
        target = await resolveSafeTarget(endpoint.url, { livemode: endpoint.livemode, allowPrivate: deps.allowPrivateUrls }, deps.resolve);
      } catch (err) {
        if (!(err instanceof UnsafeUrlError)) throw err;
        const message = `URL refused: ${err.message}`;
        await recordAttempt(deps.db, deliveryId, { attemptedAt, durationMs: elapsed(), statusCode: null, error: message, outcome: 'failed' });
        deps.onAttempt?.('failed');
        throw ApplicationFailure.nonRetryable(message, 'WebhookUrlRefused');
      }

      // During a rotation's grace period the previous secret signs too, so a receiver that still
      // holds it accepts the delivery (docs/api.md, "Rotating the secret").
      const previous =
        endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > attemptedAt ? secrets.open(endpoint.previous_secret_sealed, scope) : undefined;
      const { body, header, previousHeader } = buildSignedDelivery(event, secret, previous);
      let result;
      try {
        result = await postPinned(
          target,
          body,
          { [SIGNATURE_HEADER]: header, ...(previousHeader ? { [PREVIOUS_SIGNATURE_HEADER]: previousHeader } : {}), [EVENT_HEADER]: event.type, [DELIVERY_HEADER]: event.id },
          deps.attemptTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS,
          cancellationSignal(),
        );
      } catch (err) {
        const message = withoutPinnedAddress((err as Error).message || 'connection failed', target);
        await recordAttempt(deps.db, deliveryId, { attemptedAt, durationMs: elapsed(), statusCode: null, error: message, outcome: 'retry' });
        deps.onAttempt?.('retry');
        throw ApplicationFailure.retryable(message, 'WebhookNetworkError');
      }

      const verdict = classifyStatus(result.status);
      const error = verdict === 'delivered' ? null : `HTTP ${result.status}`;
      await recordAttempt(deps.db, deliveryId, {
        attemptedAt,
        durationMs: elapsed(),
        statusCode: result.status,
        error,
        outcome: verdict === 'retry' ? 'retry' : verdict === 'permanent' ? 'failed' : 'delivered',
      });
      deps.onAttempt?.(verdict === 'retry' ? 'retry' : verdict === 'permanent' ? 'failed' : 'delivered');
      if (verdict === 'delivered') return { status: 'delivered', statusCode: result.status };
      if (verdict === 'permanent') throw ApplicationFailure.nonRetryable(`receiver answered ${result.status}`, 'WebhookPermanentFailure');
      if ((result.status === 429 || result.status === 503) && result.retryAfterMs !== undefined) {
        throw ApplicationFailure.create({ message: `receiver answered ${result.status}`, type: 'WebhookRetryAfter', nextRetryDelay: result.retryAfterMs });
      }
      throw ApplicationFailure.retryable(`receiver answered ${result.status}`, 'WebhookRetryableStatus');
    },

    /** After the retry budget (3 days) is spent: the delivery is failed for good. */
    async markWebhookFailed({ deliveryId, reason }: DeliveryInput & { reason: string }): Promise<void> {
      await markDeliveryFailed(deps.db, deliveryId, reason, new Date());
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
