import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { IJsonViolation, nameSeparators, parseIJson } from '../../src/kernel/i-json.js';

/** JSON values whose member names are never forbidden (fast-check may draw `__proto__` otherwise). */
const value = fc.jsonValue().filter((v) => !/"(__proto__|constructor)":/.test(JSON.stringify(v)));
const membersOf = (v: unknown): number =>
  v === null || typeof v !== 'object' ? 0 : Object.values(v).reduce((n: number, child) => n + membersOf(child), Array.isArray(v) ? 0 : Object.keys(v).length);
const violation = (text: string) => {
  try {
    parseIJson(text);
  } catch (err) {
    if (err instanceof IJsonViolation) return err.path;
    throw err;
  }
  return undefined;
};

describe('parseIJson', () => {
  test('reads whatever JSON.stringify writes exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(parseIJson(JSON.stringify(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  test('counts one name separator per member, whatever the strings hold', () => {
    const object = fc.dictionary(fc.string(), value, { maxKeys: 8 });
    fc.assert(
      fc.property(object, (o) => {
        const text = JSON.stringify(o, null, 1);
        expect(nameSeparators(text)).toBe(membersOf(o));
      }),
      { numRuns: 300 },
    );
  });

  test('a name repeated in any object is found and named by its path', () => {
    const name = fc.string({ minLength: 1, maxLength: 5 }).filter((n) => n !== '__proto__' && n !== 'constructor' && !n.includes('.'));
    fc.assert(
      fc.property(name, value, value, fc.array(fc.constantFrom('a', 'b'), { maxLength: 3 }), (n, first, second, outer) => {
        let text = `{${JSON.stringify(n)}:${JSON.stringify(first)},${JSON.stringify(n)}:${JSON.stringify(second)}}`;
        for (const key of outer) text = `{"z":1,${JSON.stringify(key)}:${text}}`;
        expect(violation(text)).toBe([...[...outer].reverse(), n].join('.'));
      }),
      { numRuns: 300 },
    );
  });

  test.each([
    ['{"a":1,"a":1}', 'a'],
    ['{"a":{"b":[1,{"c":1,"c":2}]}}', 'a.b.1.c'],
    ['{"\\u0061":1,"a":2}', 'a'],
    ['[{"x":1},{"y":1,"y":1}]', '1.y'],
    ['{"s":"\\\\","s":1}', 's'],
    ['{"__proto__":1}', '__proto__'],
    ['{"a":[{"constructor":1}]}', 'a.0.constructor'],
    ['{"a":{"\\u005f_proto__":{}}}', 'a.__proto__'],
  ])('%s → path %s', (text, path) => {
    expect(violation(text)).toBe(path);
  });

  test.each(['{"a":"b\\":\\"c","c":1}', '{"a\\\\":1,"a":2}', '{"a":"::::","b":["x:y"]}', '[[[[]]]]', '{}'])('%s is fine', (text) => {
    expect(violation(text)).toBeUndefined();
  });

  test('a deeply nested body is walked without exhausting the stack', () => {
    const depth = 20_000;
    expect(() => parseIJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)).not.toThrow();
    expect(violation(`${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}`)).toBe(`${Array(depth).fill('0').join('.')}.a`);
  });

  test('text that is not JSON throws SyntaxError', () => {
    expect(() => parseIJson('{"a":')).toThrow(SyntaxError);
  });
});
