import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { VENDOR_PATTERN, vendorSchema } from '../../src/authorization/vendor.js';
import { CURSOR_PATTERN, decodeCursor, encodeCursor, SEQUENCE_CURSOR_PATTERN } from '../../src/db/pagination.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
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
