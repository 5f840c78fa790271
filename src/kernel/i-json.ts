/**
 * Request bodies are I-JSON (RFC 7493; docs/api.md, "Request bodies"): a member name repeated in
 * one object, at any depth, is refused, so a proxy, firewall or log that keeps the first value
 * never sees another request than the one decided (JSON.parse keeps the last). `__proto__` and
 * `constructor` are refused as member names anywhere, so no body can reach an object's prototype
 * machinery through a merge or a spread. No string, name or value, may hold a Unicode noncharacter
 * or a surrogate without its pair (RFC 7493 §2.1), written raw or as `\u` escapes: readers differ
 * on them (some replace, some drop, some refuse), so a logged request could differ from the one
 * decided.
 */
export class IJsonViolation extends Error {
  override name = 'IJsonViolation';
  constructor(
    message: string,
    /** Dotted path of the member at fault (`amount`, `metadata.x`, `requests.2.vendor`). */
    readonly path: string,
  ) {
    super(message);
  }
}

const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

/**
 * What no I-JSON string holds (RFC 7493 §2.1): the 66 noncharacters (U+FDD0–U+FDEF, and U+xFFFE,
 * U+xFFFF in each of the 17 planes) and surrogates without their pair. With the `u` flag a
 * well-formed pair is one code point, never `\p{Cs}`.
 */
const NOT_I_JSON_TEXT = /[\p{Noncharacter_Code_Point}\p{Cs}]/u;
/** True when `text` holds no noncharacter and no unpaired surrogate (I-JSON text). */
export const isIJsonText = (text: string): boolean => !NOT_I_JSON_TEXT.test(text);

/**
 * The escapes that can write one: `\uD800`–`\uDFFF` (alone, or the halves of a pair naming a
 * supplementary noncharacter), `\uFDD0`–`\uFDEF`, `\uFFFE`, `\uFFFF`. A text with none of these and
 * no raw one needs no walk of its strings.
 */
const SUSPECT_ESCAPE = /\\u(?:[dD][89a-fA-F]|[fF][dD][dDeE]|[fF][fF][fF][eEfF])/;

/**
 * JSON.parse, then I-JSON's member rules. The check costs one scan of the text and one walk of
 * the parsed value on the happy path: the text's name separators (`:` outside strings, one per
 * member in valid JSON) are counted and compared with the members JSON.parse kept, which are
 * fewer exactly when a name was repeated in an object. Only then is the text scanned again to name
 * the member. Throws SyntaxError for text that is not JSON.
 */
export function parseIJson(text: string, options: { strings?: boolean } = {}): unknown {
  const value: unknown = JSON.parse(text);
  const kept = countMembers(value);
  if (kept !== nameSeparators(text)) throw repeatedMember(text);
  // `strings: false` is for a body whose signature already held (a rail's event): what it reports
  // has happened, so its text is judged where it is used, never by refusing the whole event.
  if (options.strings === false) return value;
  if (SUSPECT_ESCAPE.test(text) || NOT_I_JSON_TEXT.test(text)) {
    const found = firstNotIJsonText(value);
    if (found) throw found;
  }
  return value;
}

/**
 * Members written in valid JSON text: the strings followed (after whitespace) by `:`. Jumps from
 * quote to quote with indexOf, so long strings and numbers cost no loop of ours.
 */
export function nameSeparators(text: string): number {
  let count = 0;
  for (let open = text.indexOf('"'); open !== -1; ) {
    // The closing quote: the next one not escaped by an odd run of backslashes.
    let close = text.indexOf('"', open + 1);
    while (isEscaped(text, close)) close = text.indexOf('"', close + 1);
    let next = close + 1;
    let c = text.charCodeAt(next);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++next);
    if (c === 0x3a) count++;
    open = text.indexOf('"', next);
  }
  return count;
}

function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let i = quote - 1; text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return (backslashes & 1) === 1;
}

/**
 * Members of every object in a parsed value; throws on a forbidden member name. Iterative: a
 * 64 KiB body can nest deeper than the call stack.
 */
function countMembers(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (v[i] !== null && typeof v[i] === 'object') stack.push(v[i]);
      continue;
    }
    for (const key in v) {
      count++;
      if (FORBIDDEN_NAMES.has(key)) throw forbiddenName(root, key);
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return count;
}

/** A place in a value, linked to its parent's: a path costs nothing until it is asked for. */
interface Place {
  value: unknown;
  key: string | number | undefined;
  parent: Place | undefined;
}

function pathOf(place: Place | undefined): string {
  const keys: Array<string | number> = [];
  for (let p = place; p?.key !== undefined; p = p.parent) keys.push(p.key);
  return keys.reverse().join('.');
}

/** The error for the first forbidden member name, found again with its path (the rare path). */
function forbiddenName(root: unknown, name: string): IJsonViolation {
  const stack: Place[] = [{ value: root, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const { value } = place;
    if (value === null || typeof value !== 'object') continue;
    const array = Array.isArray(value);
    for (const key of Object.keys(value)) {
      const child: Place = { value: (value as Record<string, unknown>)[key], key: array ? Number(key) : key, parent: place };
      if (!array && FORBIDDEN_NAMES.has(key)) {
        const path = pathOf(child);
        return new IJsonViolation(`Invalid ${path}: "${key}" is not allowed as a member name.`, path);
      }
      stack.push(child);
    }
  }
  return new IJsonViolation(`"${name}" is not allowed as a member name.`, 'body');
}

/** An open object or array while the text is scanned again: the names seen, or the index reached. */
interface Frame {
  names: Set<string> | undefined;
  index: number;
  /** The last member name read (objects): the key of the value that follows. */
  name: string | undefined;
}

/**
 * The error for the first member whose name its object already had (the rare path). The text is
 * valid JSON (JSON.parse read it), so a scan of its strings and brackets is enough; iterative, as
 * the text may nest deeper than the call stack.
 */
function repeatedMember(text: string): IJsonViolation {
  const frames: Frame[] = [];
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) frames.push({ names: c === 0x7b ? new Set() : undefined, index: 0, name: undefined });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) frames.pop();
    else if (c === 0x2c /* , */) frames[frames.length - 1]!.index++;
    else if (c === 0x22 /* " */) {
      let close = text.indexOf('"', i + 1);
      while (isEscaped(text, close)) close = text.indexOf('"', close + 1);
      const frame = frames[frames.length - 1];
      let next = close + 1;
      while (/[\x20\x09\x0a\x0d]/.test(text[next] ?? '')) next++;
      if (frame?.names && text[next] === ':') {
        const name = JSON.parse(text.slice(i, close + 1)) as string;
        if (frame.names.has(name)) {
          const path = [...frames.slice(0, -1).map((f) => (f.names ? f.name! : f.index)), name].join('.');
          return new IJsonViolation(`Invalid ${path}: the member name is repeated in its object (request bodies are I-JSON: each name once).`, path);
        }
        frame.names.add(name);
        frame.name = name;
      }
      i = close;
    }
  }
  return new IJsonViolation('A member name is repeated in its object (request bodies are I-JSON: each name once).', 'body');
}

/**
 * The error for the first string that is not I-JSON text (the rare path): a value names its own
 * path (`metadata.note`, `requests.1.vendor`); a member name names its object (`metadata`, or
 * `body` at the top), so the answer never echoes the character at fault. Iterative, in document
 * order.
 */
function firstNotIJsonText(root: unknown): IJsonViolation | undefined {
  const WHAT = 'must not contain Unicode noncharacters (U+FDD0–U+FDEF, U+xFFFE, U+xFFFF) or unpaired surrogates (request bodies are I-JSON)';
  const stack: Place[] = [{ value: root, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const { value } = place;
    if (typeof value === 'string') {
      if (NOT_I_JSON_TEXT.test(value)) {
        const path = pathOf(place) || 'body';
        return new IJsonViolation(`Invalid ${path}: strings ${WHAT}.`, path);
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const array = Array.isArray(value);
    const keys = Object.keys(value);
    if (!array && keys.some((k) => NOT_I_JSON_TEXT.test(k))) {
      const path = pathOf(place) || 'body';
      return new IJsonViolation(`Invalid ${path}: its member names ${WHAT}.`, path);
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (value as Record<string, unknown>)[key], key: array ? Number(key) : key, parent: place });
    }
  }
  return undefined;
}
