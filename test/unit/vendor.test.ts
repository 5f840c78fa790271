import { describe, expect, test } from 'vitest';
import { vendorForm, vendorListSchema, vendorMatches, vendorSchema, type VendorForm } from '../../src/policies/vendor.js';

const host = (key: string): VendorForm => ({ kind: 'host', key });
const ip = (key: string): VendorForm => ({ kind: 'ip', key });
const name = (key: string): VendorForm => ({ kind: 'name', key });
const noHost = (key: string): VendorForm => ({ kind: 'invalid', key, problem: 'has no host a URL parser accepts' });

describe('vendorForm (docs/api.md, "Vendor matching")', () => {
  test.each<[string, VendorForm]>([
    ['Amazon.com', host('amazon.com')],
    ['HTTP://Shop.Example', host('shop.example')],
    ['https://user@WWW.Café.com:443/x', host('xn--caf-dma.com')],
    ['shop.example/path?q#f', host('shop.example')],
    ['shop%2eexample', host('shop.example')],
    ['example。com', host('example.com')],
    // A URL parser reads these as hosts, so the lists must too.
    ['https:evil.com', host('evil.com')],
    ['//evil.com', host('evil.com')],
    ['\\\\evil.com', host('evil.com')],
    ['ftp://files.example.com/x', host('files.example.com')],
    ['ex@mple', host('mple')],
    ['x:1', host('x')],
    // Trailing dots all go; only one leading www. does, and only with its dot.
    ['shop.example.', host('shop.example')],
    ['shop.example..', host('shop.example')],
    ['www.www.example.com', host('www.example.com')],
    ['wwwexample.com', host('wwwexample.com')],
    ['www.', host('www')],
    // IPv4 in any form a URL parser takes becomes dotted decimal; IPv6 keeps its brackets.
    ['0x7f.1', ip('127.0.0.1')],
    ['2130706433', ip('127.0.0.1')],
    ['0x7f000001', ip('127.0.0.1')],
    ['12345', ip('0.0.48.57')],
    ['1.2.3', ip('1.2.0.3')],
    ['1.2.3.4', ip('1.2.3.4')],
    ['http://[::1]:8080/', ip('[::1]')],
    // Names: NFKC, full case folding, whitespace collapsed; a space makes anything a name.
    ['Ａcme  Corp', name('acme corp')],
    ['Straße', name('strasse')],
    ['a b.com', name('a b.com')],
    ['a b//c', name('a b//c')],
    ['/a b', name('/a b')],
    ['  Acme   Corp  ', name('acme corp')],
    // Only at the start is a scheme a scheme, and only before two slashes.
    ['x.com/https://evil.com', host('x.com')],
    ['x.com/ftp://evil.com', host('x.com')],
    ['x.com?https:y', host('x.com')],
    ['http:evil.com', host('evil.com')],
    ['ftp:/files.example.com', host('ftp')],
    ['shop.www.example', host('shop.www.example')],
    ['1.2.3.4a', host('1.2.3.4a')],
    // Digits alone read as an address; digits among letters are a name.
    ['12abc', name('12abc')],
    ['abc12', name('abc12')],
    // No normal form.
    ['//a b', noHost('//a b')],
    ['ftp://a b', noHost('ftp://a b')],
    ['a\u0000b', { kind: 'invalid', key: 'a\u0000b', problem: 'must not contain control characters' }],
    ['Acme\tCorp', { kind: 'invalid', key: 'acme corp', problem: 'must not contain control characters' }],
    ['https://exa mple.com', noHost('https://exa mple.com')],
    ['http://', noHost('http://')],
    ['https://./', noHost('https://./')],
    ['?x', noHost('?x')],
    ['#frag', noHost('#frag')],
  ])('%j → %j', (raw, form) => {
    expect(vendorForm(raw)).toEqual(form);
    // Asked again (from the cache), the same answer.
    expect(vendorForm(raw)).toEqual(form);
  });
});

describe('vendorMatches', () => {
  test.each([
    ['aws.amazon.com', 'amazon.com', true],
    ['amazon.com', 'amazon.com', true],
    ['https://www.amazon.com/x', 'AMAZON.COM', true],
    ['acme corp', 'ACME  Corp', true],
    ['notamazon.com', 'amazon.com', false],
    ['amazon.com.evil.io', 'amazon.com', false],
    ['amazon.com', 'aws.amazon.com', false],
    // Only a listed host covers subdomains; a listed name or address never does.
    ['shop.example', 'example', false],
    ['acme corp.example', 'example', false],
    ['10.1.2.3', '1.2.3', false],
    ['acme x.corp.example', 'corp.example', false],
    // An empty vendor or entry matches nothing, not even another empty one.
    ['', '', false],
    ['   ', '', false],
    ['', 'amazon.com', false],
  ])('%j against listed %j: %s', (vendor, listed, expected) => {
    expect(vendorMatches(vendor, listed)).toBe(expected);
  });
});

describe('vendor schemas', () => {
  test('a request vendor is refused with the reason when it has no normal form, and kept as sent otherwise', () => {
    expect(vendorSchema().safeParse('a\u0000b').error?.issues).toMatchObject([{ code: 'custom', message: 'must not contain control characters' }]);
    expect(vendorSchema().safeParse('https://exa mple.com').error?.issues).toMatchObject([{ message: 'has no host a URL parser accepts' }]);
    expect(vendorSchema().parse('  https://WWW.Shop.example/x ')).toBe('https://WWW.Shop.example/x');
    expect(vendorSchema().safeParse('   ').success).toBe(false);
    expect(vendorSchema().safeParse('a'.repeat(256)).success).toBe(false);
    expect(vendorSchema().safeParse('a'.repeat(255)).success).toBe(true);
    // The length is of the text as sent, as the document's maxLength says: padding counts.
    expect(vendorSchema().safeParse(` ${'a'.repeat(255)}`).success).toBe(false);
  });

  test('a list keeps each entry once, in its normal form; too many entries or one without a form is refused', () => {
    expect(vendorListSchema(3).parse(['Café.com', 'xn--caf-dma.com', 'https://www.amazon.com/x'])).toEqual(['xn--caf-dma.com', 'amazon.com']);
    expect(vendorListSchema(2).safeParse(['a.com', 'b.com', 'c.com']).success).toBe(false);
    expect(vendorListSchema(3).safeParse(['a.com', 'a\u0000b']).error?.issues).toMatchObject([{ code: 'custom', message: 'must not contain control characters', path: [1] }]);
  });
});
