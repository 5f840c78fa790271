/**
 * Text PostgreSQL cannot hold: NUL (text columns refuse it, jsonb refuses its escape) and UTF-16
 * surrogates without their pair (jsonb refuses their escapes, text would silently turn them into
 * U+FFFD).
 */
export const isStorableText = (text: string): boolean => text.isWellFormed() && !text.includes('\u0000');

declare global {
  interface String {
    /** ES2024 (Node 20 has it): false when the string holds a UTF-16 surrogate without its pair. */
    isWellFormed(): boolean;
  }
}

/**
 * The first place in a parsed JSON value holding unstorable text: the dotted path of a string value
 * (`metadata.invoice`, `requests.1.vendor`), or of the object whose key is at fault (`metadata`;
 * `root` at the top). Walks iteratively: a 64 KiB body can nest deeper than the call stack. Every
 * request body passes here, so the walk builds no path unless something is at fault.
 */
export function unstorablePath(value: unknown, root: string): { param: string; inKey: boolean } | undefined {
  return holdsUnstorableText(value) ? firstUnstorable(value, root) : undefined;
}

function holdsUnstorableText(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isStorableText(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        if (!isStorableText(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** A place in the value, linked to its parent's, so no path is built until one is at fault. */
interface Place {
  value: unknown;
  key: string | undefined;
  parent: Place | undefined;
}

function pathOf(place: Place, root: string): string {
  const keys: string[] = [];
  for (let p: Place | undefined = place; p?.key !== undefined; p = p.parent) keys.push(p.key);
  return keys.reverse().join('.') || root;
}

function firstUnstorable(value: unknown, root: string): { param: string; inKey: boolean } | undefined {
  const stack: Place[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const v = place.value;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return { param: pathOf(place, root), inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ value: v[i], key: String(i), parent: place });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (entries.some(([k]) => !isStorableText(k))) return { param: pathOf(place, root), inKey: true };
      for (let i = entries.length - 1; i >= 0; i -= 1) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: place });
    }
  }
  return undefined;
}
