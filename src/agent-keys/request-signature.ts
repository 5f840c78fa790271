import { createHash, timingSafeEqual } from 'node:crypto';
import { DisplayString, isInnerList, parseDictionary, type BareItem, type Dictionary, type InnerList, type Item, type Parameters } from 'structured-headers';
import { AppError, type ErrorCode } from '../kernel/errors.js';
import { NONCE_MAX_LENGTH, NONCE_MIN_LENGTH, SIGNATURE_CLOCK_SKEW_SECONDS, SIGNATURE_MAX_LIFETIME_SECONDS, WEB_BOT_AUTH_TAG } from './agent-key-deps.js';
import type { UsableKey } from './agent-key-cache.js';

/**
 * The pure steps of DECISIONS §19's verification (1–6 and 8): the fields parsed, the label chosen,
 * its parameters, what it covers and the body's digest. Steps 7 (the signature itself) and 9 (the
 * nonce) are request-signature.service.ts's. Each failure is a 401 naming `Signature-Input` unless
 * said otherwise; the first failure wins.
 */

export const SIGNATURE_INPUT = 'Signature-Input';
export const CONTENT_DIGEST = 'Content-Digest';

/** A request as a signature covers it, built by the HTTP adapter (src/http/signature-gate.ts). */
export interface SignedMessage {
  method: string;
  /** `scheme://authority`: PUBLIC_BASE_URL's, else the request's own scheme and Host. */
  origin: string;
  /** The path and query exactly as received. */
  target: string;
  /** Header fields as received: names lower case, in order, repeats kept. */
  fields: readonly { name: string; value: string }[];
  /** The body's bytes as received, before Content-Encoding is undone; empty without a body. */
  body: Buffer;
}

export const signatureError = (code: ErrorCode, message: string, param: string = SIGNATURE_INPUT) => new AppError(code, message, param);
const invalidSignature = (message: string, param?: string) => signatureError('signature_invalid', message, param);

/** A field's value: its lines joined with ", " (RFC 9110 §5.3), undefined when absent. */
export function fieldValue(msg: Pick<SignedMessage, 'fields'>, name: string): string | undefined {
  const values = msg.fields.filter((f) => f.name === name).map((f) => f.value.trim());
  return values.length === 0 ? undefined : values.join(', ');
}

/** A covered component: its name and parameters (only `key` is meaningful here). */
export interface CoveredComponent {
  name: string;
  params: Parameters;
}

export interface TaggedLabel {
  label: string;
  components: readonly CoveredComponent[];
  params: Parameters;
}

export type ParsedSignature = { kind: 'unsigned' } | { kind: 'signed'; tagged: readonly TaggedLabel[]; signatureAgent: Dictionary | undefined };

/** Counted outside strings: top-level members and parameters, to find a key that a parser let the last one win (RFC 8941 §4.2.2). */
function rawCounts(input: string): { members: number; params: number } {
  let members = input.trim() === '' ? 0 : 1;
  let params = 0;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) members++;
    else if (c === ';') params++;
  }
  return { members, params };
}

const isRfc8941 = (v: BareItem) => !(v instanceof Date) && !(v instanceof DisplayString);

function parsedParamCount(dict: Dictionary): number {
  let n = 0;
  for (const member of dict.values()) {
    n += member[1].size;
    if (isInnerList(member)) for (const item of member[0]) n += item[1].size;
  }
  return n;
}

function allRfc8941(dict: Dictionary): boolean {
  const paramsOk = (p: Parameters) => [...p.values()].every(isRfc8941);
  for (const member of dict.values()) {
    if (!paramsOk(member[1])) return false;
    if (isInnerList(member)) {
      if (!member[0].every(([v, p]) => isRfc8941(v) && paramsOk(p))) return false;
    } else if (!isRfc8941(member[0])) return false;
  }
  return true;
}

/**
 * An RFC 8941 dictionary, strictly: RFC 9651-only values (Dates, Display Strings) and a repeated
 * member or parameter name are refused, as http-message-sig refuses them (DECISIONS §2's rule for
 * repeated JSON members, kept here).
 */
export function parseStrictDictionary(input: string): Dictionary | undefined {
  let dict: Dictionary;
  try {
    dict = parseDictionary(input);
  } catch {
    return undefined;
  }
  const counts = rawCounts(input);
  if (counts.members !== dict.size || counts.params !== parsedParamCount(dict) || !allRfc8941(dict)) return undefined;
  return dict;
}

const isTagged = (member: Item | InnerList): member is InnerList =>
  isInnerList(member) && member[1].get('tag') === WEB_BOT_AUTH_TAG;

/**
 * Steps 1 and 2. No `Signature-Input`, or one with no member tagged `web-bot-auth`: unsigned (the
 * caller decides whether that is allowed). A `Signature-Input` that does not parse is invalid, not
 * unsigned: nothing shows it holds no tagged member. Then `Signature`, `Signature-Input` and
 * `Signature-Agent` must be RFC 8941 dictionaries (signatures unparameterized byte sequences,
 * inputs inner lists of strings) with the same labels in the first two.
 */
export function parseSignatureFields(msg: Pick<SignedMessage, 'fields'>): ParsedSignature {
  const inputField = fieldValue(msg, 'signature-input');
  if (inputField === undefined) return { kind: 'unsigned' };
  const inputs = parseStrictDictionary(inputField);
  if (!inputs) throw invalidSignature('Signature-Input is not an RFC 8941 dictionary (each label once, each parameter once).');
  const tagged = [...inputs].filter(([, member]) => isTagged(member));
  if (tagged.length === 0) return { kind: 'unsigned' };

  for (const member of inputs.values()) {
    if (!isInnerList(member) || !member[0].every(([name]) => typeof name === 'string')) {
      throw invalidSignature('Each Signature-Input member must be an inner list of component names.');
    }
  }
  const signatureField = fieldValue(msg, 'signature');
  const signatures = signatureField === undefined ? undefined : parseStrictDictionary(signatureField);
  if (!signatures) throw invalidSignature('Signature is missing or not an RFC 8941 dictionary.', 'Signature');
  for (const member of signatures.values()) {
    if (isInnerList(member) || !(member[0] instanceof ArrayBuffer) || member[1].size !== 0) {
      throw invalidSignature('Each Signature member must be a byte sequence without parameters.', 'Signature');
    }
  }
  if (signatures.size !== inputs.size || [...inputs.keys()].some((label) => !signatures.has(label))) {
    throw invalidSignature('Signature and Signature-Input must have the same labels.');
  }
  const agentField = fieldValue(msg, 'signature-agent');
  const signatureAgent = agentField === undefined ? undefined : parseStrictDictionary(agentField);
  if (agentField !== undefined && !signatureAgent) throw invalidSignature('Signature-Agent is not an RFC 8941 dictionary.', 'Signature-Agent');

  return {
    kind: 'signed',
    signatureAgent,
    tagged: tagged.map(([label, member]) => {
      const [items, params] = member as InnerList;
      return { label, params, components: items.map(([name, p]) => ({ name: name as string, params: p })) };
    }),
  };
}

/** The label step 3 chose, with its key and the Signature-Agent member it names (if any). */
export interface ChosenLabel extends TaggedLabel {
  key: UsableKey;
  signatureAgent: string | null;
}

/** The origin a Signature-Agent member names: an https URL with no path beyond `/`, no query, no fragment. */
function agentOrigin(member: Item | InnerList | undefined): string | undefined {
  if (!member || isInnerList(member) || typeof member[0] !== 'string') return undefined;
  try {
    const url = new URL(member[0]);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Step 3: the first tagged label (in Signature-Input order) whose `keyid` is an active key of the
 * agent; a directory-bound key counts only when the label's Signature-Agent member is its origin
 * and the directory's last listing, fetched at most 24 h before `nowMs`, holds it. Undefined: none
 * (`signature_key_unknown`).
 */
export function chooseLabel(parsed: Extract<ParsedSignature, { kind: 'signed' }>, keys: readonly UsableKey[], nowMs: number): ChosenLabel | undefined {
  for (const tagged of parsed.tagged) {
    const keyid = tagged.params.get('keyid');
    if (typeof keyid !== 'string') continue;
    const key = keys.find((k) => k.thumbprint === keyid);
    if (!key) continue;
    const member = parsed.signatureAgent?.get(tagged.label);
    const memberValue = member && !isInnerList(member) && typeof member[0] === 'string' ? member[0] : null;
    if (key.directory) {
      if (agentOrigin(member) !== key.directory.origin || !key.directory.thumbprints.includes(key.thumbprint)) continue;
      // A listing no refetch has confirmed for 24 h no longer vouches for the key.
      if (nowMs > key.directory.listedUntil) continue;
    }
    return { ...tagged, key, signatureAgent: memberValue };
  }
  return undefined;
}

/** The keyids the tagged labels name, for step 3's one reload of the agent's keys. */
export const taggedKeyids = (parsed: Extract<ParsedSignature, { kind: 'signed' }>): string[] =>
  parsed.tagged.map((t) => t.params.get('keyid')).filter((k): k is string => typeof k === 'string');

/** The signature parameters step 4 checked. */
export interface SignatureParams {
  created: number;
  expires: number;
  keyid: string;
  nonce: string;
}

/**
 * Step 4: `created`, `expires` (integers), `keyid` and `nonce` (16–256 characters) present; `alg`,
 * if any, the key's; a lifetime of at most 300 s and not negative; `created` at most 30 s ahead.
 */
export function checkParameters(chosen: ChosenLabel, now: number): SignatureParams {
  const p = chosen.params;
  const created = p.get('created');
  const expires = p.get('expires');
  const nonce = p.get('nonce');
  const keyid = p.get('keyid') as string;
  const alg = p.get('alg');
  if (typeof created !== 'number' || !Number.isInteger(created)) throw invalidSignature('The signature needs an integer `created` parameter.');
  if (typeof expires !== 'number' || !Number.isInteger(expires)) throw invalidSignature('The signature needs an integer `expires` parameter.');
  if (typeof nonce !== 'string' || nonce.length < NONCE_MIN_LENGTH || nonce.length > NONCE_MAX_LENGTH) {
    throw invalidSignature(`The signature needs a \`nonce\` parameter of ${NONCE_MIN_LENGTH}–${NONCE_MAX_LENGTH} characters.`);
  }
  if (alg !== undefined && alg !== chosen.key.alg) throw invalidSignature(`The signature's \`alg\` must be the key's (${chosen.key.alg}) when given.`);
  if (expires < created || expires - created > SIGNATURE_MAX_LIFETIME_SECONDS) {
    throw invalidSignature(`\`expires\` must follow \`created\` by at most ${SIGNATURE_MAX_LIFETIME_SECONDS} seconds.`);
  }
  if (created > now + SIGNATURE_CLOCK_SKEW_SECONDS) throw invalidSignature(`\`created\` is more than ${SIGNATURE_CLOCK_SKEW_SECONDS} seconds ahead of the server's clock.`);
  return { created, expires, keyid, nonce };
}

const plain = (c: CoveredComponent) => c.params.size === 0;

/**
 * Step 5: what the chosen label must cover: `@method`; `@authority` and `@path`, or `@target-uri`;
 * `@query` (or `@target-uri`) when the target has a query; `content-digest` when there is a body;
 * with a Signature-Agent header, its member for this label (`;key="<label>"`) or the whole field;
 * `idempotency-key` when the request has that header.
 */
export function checkCoverage(chosen: ChosenLabel, msg: SignedMessage): void {
  const has = (name: string) => chosen.components.some((c) => c.name === name && plain(c));
  const missing: string[] = [];
  if (!has('@method')) missing.push('"@method"');
  if (!has('@target-uri') && !(has('@authority') && has('@path'))) missing.push('"@authority" and "@path" (or "@target-uri")');
  if (msg.target.includes('?') && !has('@query') && !has('@target-uri')) missing.push('"@query" (or "@target-uri")');
  if (msg.body.length > 0 && !has('content-digest')) missing.push('"content-digest"');
  // A proxy that strips an uncovered key would turn the agent's signed retry into a second decision.
  if (fieldValue(msg, 'idempotency-key') !== undefined && !has('idempotency-key')) missing.push('"idempotency-key"');
  if (fieldValue(msg, 'signature-agent') !== undefined) {
    const member = chosen.components.some((c) => c.name === 'signature-agent' && c.params.size === 1 && c.params.get('key') === chosen.label);
    if (!member && !has('signature-agent')) missing.push(`"signature-agent";key="${chosen.label}"`);
  }
  if (missing.length > 0) throw invalidSignature(`The signature must cover ${missing.join(', ')}.`);
}

const DIGESTS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;

/**
 * Step 6 (RFC 9530): with a body, or a Content-Digest sent anyway, a `sha-256` or `sha-512` member
 * must equal the digest of the body's bytes as received (before Content-Encoding is undone). Other
 * algorithms are ignored.
 */
export function checkContentDigest(msg: SignedMessage): void {
  const field = fieldValue(msg, 'content-digest');
  if (field === undefined && msg.body.length === 0) return;
  const dict = field === undefined ? undefined : parseStrictDictionary(field);
  for (const [name, algorithm] of Object.entries(DIGESTS)) {
    const member = dict?.get(name);
    if (!member || isInnerList(member) || !(member[0] instanceof ArrayBuffer)) continue;
    const sent = Buffer.from(member[0]);
    const actual = createHash(algorithm).update(msg.body).digest();
    if (sent.length === actual.length && timingSafeEqual(sent, actual)) return;
  }
  throw invalidSignature('Content-Digest must hold a sha-256 or sha-512 digest of the body as sent (RFC 9530).', CONTENT_DIGEST);
}

/** Step 8: past `expires` by more than the allowed skew. */
export function checkNotExpired(params: SignatureParams, now: number): void {
  if (now > params.expires + SIGNATURE_CLOCK_SKEW_SECONDS) throw signatureError('signature_expired', 'The signature has expired; sign the request afresh.');
}
