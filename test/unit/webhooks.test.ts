import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { classifyStatus } from '../../activities/webhook-delivery.js';
import { verifyWebhookSignature } from '../../src/index.js';
import { parseRetryAfter } from '../../src/kernel/retry-after.js';
import { buildSignedDelivery } from '../../src/webhooks/signature.js';
import { checkUrlShape, refusedAddressReason, UnsafeUrlError } from '../../src/webhooks/ssrf.js';

describe('refusedAddressReason', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::7f00:1', 'rfc6052'],
  ])('%s is refused (%s)', (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${range} address`);
  });

  test.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is a public address', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });
});

describe('checkUrlShape', () => {
  test.each([
    ['http://example.com/hook', true, /https in live mode/],
    ['ftp://example.com/hook', false, /https/],
    ['https://user:pw@example.com/hook', false, /credentials/],
    ['not a url', false, /absolute URL/],
  ])('%s (live %s) is refused', (url, livemode, message) => {
    expect(() => checkUrlShape(url, { livemode, allowPrivate: false })).toThrow(UnsafeUrlError);
    expect(() => checkUrlShape(url, { livemode, allowPrivate: false })).toThrow(message);
  });

  test('http is fine in test mode, https in both', () => {
    expect(checkUrlShape('http://example.com/x', { livemode: false, allowPrivate: false }).hostname).toBe('example.com');
    expect(checkUrlShape('https://example.com/x', { livemode: true, allowPrivate: false }).hostname).toBe('example.com');
  });
});

describe('signatures', () => {
  const event = { id: 'evt_1', type: 'authorize.approved', data: { decision_id: 'dec_1', amount: 100 }, created_at: new Date('2026-01-02T03:04:05.000Z') };

  test("the documented recipe (docs/api.md, Verifying a delivery) verifies the header against the raw body, verbatim", () => {
    const secret = 'whsec_test';
    const { body, header } = buildSignedDelivery(event, secret);
    // The receiver's side, exactly as docs/api.md ("Verifying a delivery") describes it.
    const computed = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
    const received = header.replace(/^sha256=/, '');
    expect(received.length).toBe(computed.length);
    expect(timingSafeEqual(Buffer.from(received), Buffer.from(computed))).toBe(true);
    expect(verifyWebhookSignature(body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret)).toBe(true);
  });

  test('the body is the envelope; its signature member signs the envelope without it', () => {
    const { body } = buildSignedDelivery(event, 's');
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(['id', 'event', 'data', 'timestamp', 'signature']);
    const { signature, ...unsigned } = parsed;
    expect(signature).toBe(`sha256=${createHmac('sha256', 's').update(JSON.stringify(unsigned)).digest('hex')}`);
    expect(buildSignedDelivery(event, 's').body).toBe(body);
  });

  test.each([
    ['a re-serialized body', (b: string) => JSON.stringify(JSON.parse(b), null, 1), (h: string) => h, 'whsec_test'],
    ['a tampered body', (b: string) => b.replace('100', '999'), (h: string) => h, 'whsec_test'],
    ['another secret', (b: string) => b, (h: string) => h, 'whsec_other'],
    ['a header without the prefix', (b: string) => b, (h: string) => h.slice(7), 'whsec_test'],
    ['a truncated header', (b: string) => b, (h: string) => h.slice(0, -2), 'whsec_test'],
    ['an empty header', (b: string) => b, () => '', 'whsec_test'],
  ])('%s does not verify', (_name, body, header, secret) => {
    const signed = buildSignedDelivery(event, 'whsec_test');
    expect(verifyWebhookSignature(body(signed.body), header(signed.header), secret)).toBe(false);
  });
});

describe('delivery outcomes', () => {
  test.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [301, 'retry'],
    [400, 'permanent'],
    [401, 'permanent'],
    [404, 'permanent'],
    [408, 'retry'],
    [410, 'permanent'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
  ])('HTTP %i → %s', (status, verdict) => expect(classifyStatus(status)).toBe(verdict));

  test('Retry-After is read as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7_000);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
    // A receiver asking for a day (or a date a year away) is retried after an hour at most.
    expect(parseRetryAfter('86400')).toBe(3_600_000);
    expect(parseRetryAfter(new Date(Date.now() + 365 * 86_400_000).toUTCString())).toBe(3_600_000);
    expect(parseRetryAfter(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
  });
});
