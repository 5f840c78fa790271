import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { VENDOR_PATTERN, vendorSchema } from '../../src/policies/vendor.js';
import { CURSOR_PATTERN, decodeCursor, encodeCursor, SEQUENCE_CURSOR_PATTERN } from '../../src/db/pagination.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { createPolicySchema } from '../../src/policies/policies.schemas.js';
import { simulateSchema } from '../../src/simulation/simulate.schemas.js';
import { trimmedText } from '../../src/kernel/schemas.js';
import { parseMajorUnits } from '../../src/quickstart/decimal.js';

// The document's patterns against the code that decides: a client checking a value with the
// pattern must never refuse what the server takes, nor (where the pattern is exact) send what it refuses.

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** base64url text after `c1:`, leaning on `A` (zero bits) so NUL bytes come up often. */
const cursorTail = fc
  .array(fc.oneof(fc.constant('A'), fc.constantFrom(...B64)), { minLength: 1, maxLength: 40 })
  .map((cs) => cs.join(''))
  .filter((s) => s.length % 4 !== 1); // a lone last character carries no byte: never issued
const decodes = (cursor: string, check = (_: string) => true) => {
  try {
    return check(decodeCursor(cursor));
  } catch {
    return false;
  }
};

describe('cursor patterns', () => {
  const cursor = new RegExp(CURSOR_PATTERN);
  const sequence = new RegExp(SEQUENCE_CURSOR_PATTERN);

  test('every cursor the service issues matches', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-z]{2,4}_[0-9A-Za-z]{1,64}$/), (id) => cursor.test(encodeCursor(id))));
    expect(cursor.test(encodeCursor('x'.repeat(197)))).toBe(true);
    fc.assert(fc.property(fc.integer({ min: 1, max: 99_999_999_999_999 }), (n) => sequence.test(encodeCursor(n))));
  });

  test('a cursor matches exactly when decodeCursor takes it', () => {
    fc.assert(fc.property(cursorTail, (tail) => cursor.test(`YzE6${tail}`) === decodes(`YzE6${tail}`)), { numRuns: 5000 });
    expect(cursor.test(encodeCursor('x'.repeat(198)))).toBe(false);
    expect(decodes(encodeCursor('x'.repeat(198)))).toBe(false);
  });

  test('an audit cursor that matches decodes to a sequence number', () => {
    const isSequence = (key: string) => Number.isSafeInteger(Number(key)) && Number(key) >= 1;
    fc.assert(fc.property(cursorTail, (tail) => !sequence.test(`YzE6${tail}`) || decodes(`YzE6${tail}`, isSequence)), { numRuns: 5000 });
    for (const key of ['0', '01', '1a', '1.5']) expect(sequence.test(encodeCursor(key))).toBe(false);
  });
});

describe('vendor pattern', () => {
  const pattern = new RegExp(VENDOR_PATTERN);
  const vendorChar = fc.constantFrom('a', 'B', '7', '.', ' ', '\t', '\n', '\u0000', '\u001f', '\u007f', '\u0085', '\u00a0', '\u2003', '\ufeff', 'é');
  test('matches exactly the vendors with a first character and no control character once trimmed', () => {
    fc.assert(
      fc.property(fc.array(vendorChar, { maxLength: 12 }).map((cs) => cs.join('')), (vendor) => {
        const issue = vendorSchema().safeParse(vendor).error?.issues[0];
        const refusedForText = issue !== undefined && (issue.code === 'too_small' || issue.message === 'must not contain control characters');
        return pattern.test(vendor) === !refusedForText;
      }),
      { numRuns: 5000 },
    );
  });

  test('the document gives it, with its description, to every vendor field of a request', () => {
    const authorize = buildOpenApiDocument().paths['/v1/authorize']!.post.requestBody.content['application/json'].schema;
    expect(authorize.properties.vendor).toMatchObject({ pattern: VENDOR_PATTERN, description: 'A name or a domain/URL; must not contain control characters' });
  });
});

describe('quick-start decimal patterns', () => {
  const body = buildOpenApiDocument().paths['/vaults']!.post.requestBody.content['application/json'].schema;
  const positive = new RegExp(body.properties.daily_limit.anyOf[1].pattern);
  const threshold = new RegExp(body.properties.require_approval_above.anyOf[1].pattern);
  const decimalText = fc
    .tuple(fc.stringMatching(/^[0-9]{1,16}$/), fc.option(fc.stringMatching(/^[0-9]{0,3}$/)))
    .map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`));
  test('a numeric string matches exactly when parseMajorUnits takes it', () => {
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.string({ maxLength: 6 })), (text) => {
        expect(positive.test(text)).toBe(parseMajorUnits(text).ok);
        expect(threshold.test(text)).toBe(parseMajorUnits(text, { allowZero: true }).ok);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('cross-field rules in the document', () => {
  const doc = buildOpenApiDocument();
  const ajv = new Ajv2020({ strict: false });
  const bodyOf = (path: string, method = 'post') => ajv.compile(doc.paths[path]![method].requestBody.content['application/json'].schema);
  /** The document and the server's schema give the same verdict on each body. */
  const agree = (path: string, server: z.ZodType, bodies: object[], method = 'post') => {
    const validate = bodyOf(path, method);
    for (const body of bodies) expect([body, validate(body)]).toEqual([body, server.safeParse(body).success]);
  };

  test('policies: an escalation needs a timeout it fits in (as far as one field can say)', () => {
    const base = { name: 'p', budget_monthly: 1, budget_single_max: 1 };
    agree('/v1/policies', createPolicySchema, [
      { ...base, escalate_after_seconds: 60, approval_timeout_seconds: 59 },
      { ...base, escalate_after_seconds: 72 * 3600 + 1 },
      { ...base, escalate_after_seconds: 72 * 3600 },
      { ...base, escalate_after_seconds: null, approval_timeout_seconds: 1 },
      { ...base, velocity_limits: [{ window_seconds: 60 }] },
      { ...base, velocity_limits: [{ window_seconds: 60, max_count: null, max_amount: 5 }] },
    ]);
  });

  test('simulations: requests or from/to, and a policy or a policy_id', () => {
    const request = { agent_id: 'agt_1', amount: 1, currency: 'USD', vendor: 'acme' };
    agree('/v1/policies/simulate', simulateSchema, [
      { policy_id: 'pol_1', requests: [request] },
      { policy_id: 'pol_1', requests: [request], from: '2026-01-01T00:00:00Z' },
      { policy_id: 'pol_1', requests: [request], to: '2026-01-01T00:00:00Z' },
      { policy_id: 'pol_1', from: '2026-01-01T00:00:00Z' },
      { policy_id: 'pol_1', to: '2026-01-01T00:00:00Z' },
      { requests: [request] },
    ]);
  });

  test('API keys: agent_id exactly with role agent (keys.service.ts refuses the rest, test/api/api-keys.test.ts)', () => {
    const validate = bodyOf('/v1/api-keys');
    expect(validate({ name: 'k', role: 'agent', agent_id: 'agt_1' })).toBe(true);
    expect(validate({ name: 'k', role: 'admin' })).toBe(true);
    expect(validate({ name: 'k', role: 'agent' })).toBe(false);
    expect(validate({ name: 'k', role: 'reviewer', agent_id: 'agt_1' })).toBe(false);
  });
});

describe('trimmed text pattern', () => {
  const pattern = new RegExp(trimmedText(10).meta()!.pattern as string);
  const textChar = fc.constantFrom('a', ' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', '\u0085', '\u0000', 'é');
  test('matches exactly the text that keeps a character once trimmed and has no NUL', () => {
    fc.assert(
      fc.property(fc.array(textChar, { maxLength: 8 }).map((cs) => cs.join('')), (text) =>
        pattern.test(text) === (text.trim().length > 0 && !text.includes('\u0000')),
      ),
      { numRuns: 3000 },
    );
  });
});
