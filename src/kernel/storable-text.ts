/**
 * Text PostgreSQL cannot hold: NUL (text columns refuse it, jsonb refuses its escape) and UTF-16
 * surrogates without their pair (jsonb refuses their escapes, text would silently turn them into
 * U+FFFD).
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text);

/**
 * The first place in a parsed JSON value holding unstorable text: the dotted path of a string value
 * (`metadata.invoice`, `requests.1.vendor`), or of the object whose key is at fault (`metadata`;
 * `root` at the top). Walks iteratively: a 64 KiB body can nest deeper than the call stack.
 */
export function unstorablePath(value: unknown, root: string): { param: string; inKey: boolean } | undefined {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return { param: path.join('.') || root, inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ value: v[i], path: [...path, String(i)] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (entries.some(([k]) => !isStorableText(k))) return { param: path.join('.') || root, inKey: true };
      for (let i = entries.length - 1; i >= 0; i -= 1) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
  return undefined;
}
