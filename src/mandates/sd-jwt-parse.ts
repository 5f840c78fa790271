/**
 * A presentation as AP2's SDK sends it, `<open>~~<closed>~`, taken apart strictly (DECISIONS §20):
 * split on `~~` (the open part regains its `~`), each part's JWT and disclosures decoded as I-JSON,
 * every digest resolved to exactly one disclosure and every disclosure used once. No signature is
 * checked here (chain.ts does, with the keys).
 */
import { hash } from 'node:crypto';
import { parseIJson } from '../kernel/i-json.js';
import { CLOSED_VCT, MAX_DISCLOSURES, MAX_DISCLOSURE_DEPTH, OPEN_VCT, PRESENTATION_MAX_PARTS, SD_ALG } from './mandate-deps.js';

/** One JWT as sent. */
export interface ParsedJwt {
  /** The compact JWT, as sent. */
  compact: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `header.payload` as sent: what the signature covers. */
  signingInput: string;
  /** The signature's bytes (for ES256, r‖s). */
  signature: Buffer;
}

/** One SD-JWT part: its JWT, its disclosures as sent, and its `delegate_payload`'s one object, resolved. */
export interface ParsedPart {
  jwt: ParsedJwt;
  disclosures: string[];
  /** The part as sent, ending `~` (for the open part: what `sd_hash` covers). */
  asSent: string;
  /** base64url SHA-256 of `asSent` (for the open part: its `sd_hash`). */
  digest: string;
  /** The single object of `delegate_payload`, every digest replaced by its disclosure. */
  delegate: Record<string, unknown>;
}

export interface ParsedPresentation {
  /** Shared with every presentation of the same open part (read-only: frozen). */
  open: ParsedPart;
  closed: ParsedPart;
  /** base64url SHA-256 of the closed JWT: the receipt's `reference`. */
  reference: string;
}

export type ParseFailure = {
  error: 'mandates_not_supported' | 'invalid_credential';
  description: string;
  /** Computable whenever a closed JWT can be found, even when the rest fails. */
  reference: string | null;
};

export type ParseResult = { ok: true; value: ParsedPresentation } | ({ ok: false } & ParseFailure);

/** SHA-256 of a string's UTF-8 bytes (ASCII for every JWT and disclosure) or of bytes (one-shot: no Hash object). */
export const sha256 = (data: string | Uint8Array): Buffer => hash('sha256', data, 'buffer');
/** base64url SHA-256: a disclosure's digest, `sd_hash`, `issuer_jwt_hash`, a receipt's `reference`. */
export const sha256B64url = (data: string): string => hash('sha256', data, 'base64url');

/** What a part failed on; thrown inside the parser, answered as `invalid_credential`. */
class Malformed extends Error {}

const B64URL = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * base64url as RFC 7515 writes it: unpadded, and canonical (the unused bits of the last character
 * zero), so one value has one spelling; a second spelling of a closed JWT would be a second
 * `reference` for the same signature.
 */
function b64urlBytes(text: string, what: string): Buffer {
  if (!B64URL.test(text) || text.length % 4 === 1) throw new Malformed(`${what} is not base64url`);
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) throw new Malformed(`${what} is not canonical base64url`);
  return bytes;
}

/** Containers nested in a JSON text, counted on its characters before it is parsed (strings skipped). */
function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) max = depth;
      if (max > MAX_DISCLOSURE_DEPTH) return max;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return max;
}

/** base64url → UTF-8 → I-JSON (a repeated member, `__proto__` or `constructor` refused), nested at most MAX_DISCLOSURE_DEPTH deep. */
function decodeJson(segment: string, what: string): unknown {
  const text = (() => {
    try {
      return utf8.decode(b64urlBytes(segment, what));
    } catch (err) {
      throw err instanceof Malformed ? err : new Malformed(`${what} is not UTF-8`);
    }
  })();
  if (nestingOf(text) > MAX_DISCLOSURE_DEPTH) throw new Malformed(`${what} nests deeper than ${MAX_DISCLOSURE_DEPTH}`);
  try {
    return parseIJson(text);
  } catch (err) {
    throw new Malformed(`${what} is not I-JSON${err instanceof SyntaxError ? '' : ` (${(err as Error).message})`}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJwt(compact: string, what: string): ParsedJwt {
  const segments = compact.split('.');
  if (segments.length !== 3) throw new Malformed(`${what} is not a compact JWS (header.payload.signature)`);
  const [h, p, s] = segments as [string, string, string];
  const header = decodeJson(h, `${what} header`);
  const payload = decodeJson(p, `${what} payload`);
  if (!isObject(header) || !isObject(payload)) throw new Malformed(`${what} header and payload must be JSON objects`);
  return { compact, header, payload, signingInput: `${h}.${p}`, signature: b64urlBytes(s, `${what} signature`) };
}

interface Disclosure {
  text: string;
  salt: string;
  /** Absent for an array element's disclosure. */
  name?: string;
  value: unknown;
}

/** SD-JWT's own markers, and the names that would reach an object's prototype when set (as I-JSON refuses them). */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['_sd', '...', '__proto__', 'constructor']);

function parseDisclosure(text: string, what: string): Disclosure {
  const decoded = decodeJson(text, what);
  if (!Array.isArray(decoded) || (decoded.length !== 2 && decoded.length !== 3)) throw new Malformed(`${what} must be a JSON array [salt, value] or [salt, name, value]`);
  const [salt] = decoded;
  if (typeof salt !== 'string') throw new Malformed(`${what}: its salt must be a string`);
  if (decoded.length === 2) return { text, salt, value: decoded[1] };
  const name: unknown = decoded[1];
  if (typeof name !== 'string') throw new Malformed(`${what}: its claim name must be a string`);
  if (RESERVED_NAMES.has(name)) throw new Malformed(`${what}: "${name}" cannot be a disclosed claim's name`);
  return { text, salt, name, value: decoded[2] };
}

/**
 * Resolves one part's `delegate_payload` against its disclosures (RFC 9901 §7.1, and stricter):
 * every digest must have its disclosure, no digest may appear twice, and every disclosure must be
 * used, so what was signed and what is read are the same set of claims.
 */
class Resolver {
  private readonly byDigest = new Map<string, Disclosure>();
  private readonly used = new Set<string>();

  constructor(disclosures: Disclosure[], private readonly what: string) {
    for (const d of disclosures) {
      const digest = sha256B64url(d.text);
      if (this.byDigest.has(digest)) throw new Malformed(`${what}: a disclosure is sent twice`);
      this.byDigest.set(digest, d);
    }
  }

  private take(digest: unknown, kind: 'claim' | 'element'): Disclosure {
    if (typeof digest !== 'string') throw new Malformed(`${this.what}: a digest must be a string`);
    if (this.used.has(digest)) throw new Malformed(`${this.what}: a digest appears twice`);
    const disclosure = this.byDigest.get(digest);
    if (!disclosure) throw new Malformed(`${this.what}: a digest has no disclosure`);
    if ((disclosure.name === undefined) !== (kind === 'element')) {
      throw new Malformed(`${this.what}: ${kind === 'element' ? 'an array element' : 'an object claim'}'s digest points at a disclosure of the other kind`);
    }
    this.used.add(digest);
    return disclosure;
  }

  /** `level`: how many disclosures the value sits inside. */
  resolve(value: unknown, level: number): unknown {
    if (Array.isArray(value)) {
      return value.map((item) => {
        if (isObject(item) && '...' in item) {
          if (Object.keys(item).length !== 1) throw new Malformed(`${this.what}: an array digest {"...": d} must have no other member`);
          return this.resolve(this.take(item['...'], 'element').value, this.deeper(level));
        }
        return this.resolve(item, level);
      });
    }
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      if (key === '_sd') continue;
      if (key === '...') throw new Malformed(`${this.what}: "..." is a member only of an array element's digest`);
      out[key] = this.resolve(member, level);
    }
    if ('_sd' in value) {
      const digests = value._sd;
      if (!Array.isArray(digests)) throw new Malformed(`${this.what}: _sd must be an array of digests`);
      for (const digest of digests) {
        const d = this.take(digest, 'claim');
        if (Object.hasOwn(out, d.name!)) throw new Malformed(`${this.what}: the disclosed claim "${d.name}" is already in its object`);
        out[d.name!] = this.resolve(d.value, this.deeper(level));
      }
    }
    return out;
  }

  private deeper(level: number): number {
    if (level + 1 > MAX_DISCLOSURE_DEPTH) throw new Malformed(`${this.what}: disclosures nest deeper than ${MAX_DISCLOSURE_DEPTH}`);
    return level + 1;
  }

  /** After resolving: a disclosure no digest referenced is refused too (it would be a claim nobody signed for where it sits). */
  assertAllUsed(): void {
    if (this.used.size !== this.byDigest.size) throw new Malformed(`${this.what}: a disclosure is not referenced by any digest`);
  }
}

/** Digests anywhere outside `delegate_payload` (top-level claims such as `aud`, `nonce`, `sd_hash` must be signed in the clear). */
function hasDigests(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((v) => (isObject(v) && '...' in v) || hasDigests(v));
  if (!isObject(value)) return false;
  return '_sd' in value || Object.values(value).some(hasDigests);
}

/** One part, `jwt~d1~…~dn~` whose SHA-256 is `digest`, strictly. */
function parsePart(asSent: string, digest: string, what: string): ParsedPart {
  const segments = asSent.split('~');
  segments.pop(); // `asSent` ends with `~`: the last segment is the empty one after it
  const [compact, ...disclosures] = segments as [string, ...string[]];
  if (compact === '') throw new Malformed(`${what}: its JWT is empty`);
  if (disclosures.some((d) => d === '')) throw new Malformed(`${what}: an empty disclosure segment`);
  const jwt = parseJwt(compact, `${what} JWT`);
  if (jwt.payload._sd_alg !== SD_ALG) throw new Malformed(`${what}: _sd_alg must be "${SD_ALG}"`);
  const parsed = disclosures.map((d, i) => parseDisclosure(d, `${what} disclosure ${i + 1}`));
  const resolver = new Resolver(parsed, what);
  const { delegate_payload, ...rest } = jwt.payload;
  if (hasDigests(rest)) throw new Malformed(`${what}: only delegate_payload may hold selectively disclosed claims`);
  if (!Array.isArray(delegate_payload)) throw new Malformed(`${what}: delegate_payload must be an array`);
  const resolved = resolver.resolve(delegate_payload, 0) as unknown[];
  resolver.assertAllUsed();
  if (resolved.length !== 1 || !isObject(resolved[0])) throw new Malformed(`${what}: delegate_payload must hold exactly one object`);
  return { jwt, disclosures, asSent, digest, delegate: resolved[0] };
}

type Peek = { found: boolean; vct?: unknown };

/**
 * The `vct` of a part's delegate object, read leniently (no I-JSON, no strictness), for step 1:
 * `found` is false when the object cannot be told at all. Step 1 beats step 2 wherever the `vct`
 * can be read.
 */
function peekVct(asSent: string): Peek {
  try {
    const [compact, ...disclosures] = asSent.split('~');
    const payload: unknown = JSON.parse(Buffer.from(compact!.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const first: unknown = isObject(payload) && Array.isArray(payload.delegate_payload) ? payload.delegate_payload[0] : undefined;
    if (!isObject(first)) return { found: false };
    if (!('...' in first)) return { found: true, vct: first.vct };
    const text = disclosures.find((d) => d !== '' && sha256B64url(d) === first['...']);
    if (text === undefined) return { found: false };
    const decoded: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    const value: unknown = Array.isArray(decoded) && decoded.length === 2 ? decoded[1] : undefined;
    return isObject(value) ? { found: true, vct: value.vct } : { found: false };
  } catch {
    return { found: false };
  }
}

/**
 * Open parts parsed before, by their digest, with their lenient `vct`: an open mandate is presented
 * again with every payment closed under it, and what is read of it is a function of its text alone.
 * Shared between requests, so frozen; bounded by their total length, the least recently presented
 * dropped first.
 */
const openParts = new Map<string, { part: ParsedPart; peek: Peek }>();
const OPEN_PARTS_MAX_CHARS = 8 * 1024 * 1024;
/** Longer open parts are parsed each time (ours are a few KB). */
const OPEN_PART_MAX_CHARS = 64 * 1024;
let openPartsChars = 0;

function knownOpenPart(digest: string): { part: ParsedPart; peek: Peek } | undefined {
  const known = openParts.get(digest);
  if (known) {
    openParts.delete(digest);
    openParts.set(digest, known);
  }
  return known;
}

function rememberOpenPart(part: ParsedPart, peek: Peek): void {
  if (part.asSent.length > OPEN_PART_MAX_CHARS || openParts.has(part.digest)) return;
  for (const [digest, old] of openParts) {
    if (openPartsChars + part.asSent.length <= OPEN_PARTS_MAX_CHARS) break;
    openParts.delete(digest);
    openPartsChars -= old.part.asSent.length;
  }
  openParts.set(part.digest, { part: deepFreeze(part), peek: deepFreeze(peek) });
  openPartsChars += part.asSent.length;
}

/** Freezes objects and arrays all the way down (bytes are left as they are: nothing writes them). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** What AP2's `get_closed_mandate_jwt` takes: the last `~~` part up to its first `~`. */
function closedJwtOf(presentation: string): string {
  const at = presentation.lastIndexOf('~~');
  const last = at === -1 ? presentation : presentation.slice(at + 2);
  return last.split('~', 1)[0]!;
}

/** §20 step 1 and the structural half of step 2. */
export function parsePresentation(presentation: string): ParseResult {
  const closedJwt = closedJwtOf(presentation);
  const reference = closedJwt === '' ? null : sha256B64url(closedJwt);
  const fail = (error: ParseFailure['error'], description: string): ParseResult => ({ ok: false, error, description, reference });

  const parts = presentation.split('~~');
  if (parts.length > PRESENTATION_MAX_PARTS) {
    return fail('mandates_not_supported', `a presentation has at most ${PRESENTATION_MAX_PARTS} parts (<open>~~<closed>~); this one has ${parts.length}`);
  }
  // Before any hashing or parsing: the non-empty `~`-separated segments are the parts' JWTs and their disclosures.
  let segments = 0;
  for (let i = presentation.indexOf('~'), from = 0; ; i = presentation.indexOf('~', from)) {
    const end = i === -1 ? presentation.length : i;
    if (end > from) segments++;
    if (i === -1) break;
    from = i + 1;
  }
  if (segments - parts.length > MAX_DISCLOSURES) return fail('invalid_credential', `a presentation carries at most ${MAX_DISCLOSURES} disclosures`);

  const openAsSent = `${parts[0]}~`;
  const openDigest = sha256B64url(openAsSent);
  const known = knownOpenPart(openDigest);
  const closedAsSent = parts[1];
  const open = known?.peek ?? peekVct(openAsSent);
  if (open.found && open.vct !== OPEN_VCT) return fail('mandates_not_supported', `the open mandate's vct must be "${OPEN_VCT}"`);
  if (closedAsSent !== undefined) {
    const closed = peekVct(closedAsSent);
    if (closed.found && closed.vct !== CLOSED_VCT) return fail('mandates_not_supported', `the closed mandate's vct must be "${CLOSED_VCT}"`);
  }
  if (closedAsSent === undefined) return fail('invalid_credential', 'a closed mandate is required: <open>~~<closed>~');

  try {
    if (parts[0] === '') throw new Malformed('the open part is empty');
    if (parts[0]!.endsWith('~')) throw new Malformed('open part: an empty disclosure segment');
    if (!closedAsSent.endsWith('~')) throw new Malformed('the closed part must end with "~" (no key-binding JWT follows it)');
    const openPart = known?.part ?? parsePart(openAsSent, openDigest, 'open part');
    if (!known && openPart.delegate.vct === OPEN_VCT) rememberOpenPart(openPart, open);
    const closedPart = parsePart(closedAsSent, sha256B64url(closedAsSent), 'closed part');
    if (closedPart.disclosures.length === 0) throw new Malformed('closed part: the closed mandate must be disclosed');
    if (openPart.delegate.vct !== OPEN_VCT) return fail('mandates_not_supported', `the open mandate's vct must be "${OPEN_VCT}"`);
    if (closedPart.delegate.vct !== CLOSED_VCT) return fail('mandates_not_supported', `the closed mandate's vct must be "${CLOSED_VCT}"`);
    return { ok: true, value: { open: openPart, closed: closedPart, reference: reference! } };
  } catch (err) {
    if (err instanceof Malformed) return fail('invalid_credential', err.message);
    throw err;
  }
}
