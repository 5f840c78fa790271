import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const EVENT_HEADER = 'X-Service-Event';
export const DELIVERY_HEADER = 'X-Service-Delivery';

export const hmacHex = (payload: string, secret: string): string => createHmac('sha256', secret).update(payload, 'utf8').digest('hex');

/**
 * Verifies `X-Service-Signature: sha256=<hex>` against the raw request body (docs/api.md,
 * "Verifying a delivery"): HMAC-SHA256 with the endpoint's secret, compared in constant time after
 * checking lengths.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, header: string | undefined | null, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const received = Buffer.from(header.slice('sha256='.length), 'utf8');
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
  if (received.length !== expected.length) return false;
  return timingSafeEqual(received, expected);
}

export interface EventForEnvelope {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * The delivery body, serialized once: `{id, event, data, timestamp, signature}`. The body's
 * `signature` member signs the envelope without it (`{"id","event","data","timestamp"}` as
 * serialized here); the header signs the whole body as sent. Same event and secret → same bytes
 * on every attempt.
 */
export function buildSignedDelivery(event: EventForEnvelope, secret: string): { body: string; header: string } {
  const unsigned = { id: event.id, event: event.type, data: event.data, timestamp: event.created_at.toISOString() };
  const inner = `sha256=${hmacHex(JSON.stringify(unsigned), secret)}`;
  const body = JSON.stringify({ ...unsigned, signature: inner });
  return { body, header: `sha256=${hmacHex(body, secret)}` };
}
