import { isSignatureError, verifySignature, type RequestDescriptor } from 'http-message-sig';
import type { Db } from '../db/database.js';
import type { RequestSignature } from '../kernel/caller.js';
import { SIGNATURE_CLOCK_SKEW_SECONDS } from './agent-key-deps.js';
import type { AgentKeyCache, AgentScope } from './agent-key-cache.js';
import { claimNonce } from './nonces.repository.js';
import {
  checkContentDigest,
  checkCoverage,
  checkNotExpired,
  checkParameters,
  chooseLabel,
  parseSignatureFields,
  signatureError,
  taggedKeyids,
  type ChosenLabel,
  type SignatureParams,
  type SignedMessage,
} from './request-signature.js';

export interface RequestSignatureDeps {
  db: Db;
  cache: AgentKeyCache;
  /** Records that a key signed, off the request's path (at most once a minute per key). */
  usage: { record(agentKeyId: string): void };
  now?: (() => Date) | undefined;
}

/** The agent whose keys may sign this request, and whether its policy requires a signature. */
export interface SignatureSubject {
  agentId: string;
  required: boolean;
}

/** The parameters every web-bot-auth signature carries (step 4 checks their values). */
const REQUIRED_PARAMETERS = ['created', 'expires', 'keyid', 'nonce'];

/** Only the fields the signature base reads: an unrelated non-ASCII header then never fails a good signature. */
function neededFields(chosen: ChosenLabel, msg: SignedMessage): RequestDescriptor['fields'] {
  const names = new Set(['signature', 'signature-input', ...chosen.components.filter((c) => !c.name.startsWith('@')).map((c) => c.name)]);
  return msg.fields.filter((f) => names.has(f.name));
}

/**
 * Step 7 through http-message-sig 0.3.0, with the chosen label and the key's own verifier (its
 * alg only: an HMAC or any other claim fails). The library's time checks would run before the
 * crypto and answer "expired" for a forged request that step 7 must call invalid, so it is given
 * `now: created` (step 4 made sure expires ≥ created): they always pass, and steps 4 and 8 stay ours,
 * in DECISIONS §19's order.
 */
export async function checkSignature(chosen: ChosenLabel, params: SignatureParams, msg: SignedMessage): Promise<void> {
  const descriptor: RequestDescriptor = { kind: 'request', method: msg.method, targetUri: msg.origin + msg.target, fields: neededFields(chosen, msg) };
  try {
    await verifySignature(descriptor, {
      label: chosen.label,
      policy: { algorithms: [chosen.key.alg], requiredComponents: [], requiredParameters: REQUIRED_PARAMETERS, now: params.created },
      resolveVerifier: (candidate) => {
        if (candidate.parameters.keyid !== chosen.key.thumbprint) throw new Error('another keyid');
        return chosen.key.verifier;
      },
    });
  } catch (err) {
    if (isSignatureError(err)) throw signatureError('signature_invalid', 'The signature does not verify with the key its keyid names.');
    throw err;
  }
}

/**
 * DECISIONS §19's verification of a request made with a credential bound to one agent, first
 * failure wins: undefined when unsigned and allowed, the signature as recorded when it verified,
 * else a 401 (`signature_required`, `_invalid`, `_key_unknown`, `_expired`, `_replayed`).
 */
export async function verifyRequestSignature(
  deps: RequestSignatureDeps,
  scope: AgentScope,
  subject: SignatureSubject,
  msg: SignedMessage,
): Promise<RequestSignature | undefined> {
  const nowMs = (deps.now?.() ?? new Date()).getTime();
  const now = Math.floor(nowMs / 1000);
  const parsed = parseSignatureFields(msg);
  if (parsed.kind === 'unsigned') {
    if (subject.required) throw signatureError('signature_required', "This agent's policy requires signed requests: sign with a registered key (RFC 9421, tag \"web-bot-auth\").");
    return undefined;
  }
  let keys = await deps.cache.activeKeys(scope, subject.agentId);
  let chosen = chooseLabel(parsed, keys, nowMs);
  // A keyid this process has not seen yet (a key just registered elsewhere), or a directory key its
  // cached listing does not vouch for (refetched elsewhere since): read the keys once more.
  if (!chosen && taggedKeyids(parsed).some((id) => keys.find((k) => k.thumbprint === id)?.directory !== null)) {
    keys = await deps.cache.activeKeys(scope, subject.agentId, true);
    chosen = chooseLabel(parsed, keys, nowMs);
  }
  if (!chosen) throw signatureError('signature_key_unknown', "No web-bot-auth signature names an active key of this request's agent.");
  const params = checkParameters(chosen, now);
  checkCoverage(chosen, msg);
  checkContentDigest(msg);
  await checkSignature(chosen, params, msg);
  checkNotExpired(params, now);
  const claim = await claimNonce(deps.db, chosen.key.id, chosen.key.thumbprint, params.nonce, new Date((params.expires + SIGNATURE_CLOCK_SKEW_SECONDS) * 1000));
  if (claim === 'revoked') {
    deps.cache.drop(subject.agentId);
    throw signatureError('signature_key_unknown', "No web-bot-auth signature names an active key of this request's agent.");
  }
  if (claim === 'replayed') throw signatureError('signature_replayed', 'This signature was already used (its nonce was seen); sign the request afresh with a new nonce.');
  deps.usage.record(chosen.key.id);
  return { agent_key_id: chosen.key.id, keyid: chosen.key.thumbprint, alg: chosen.key.alg, signature_agent: chosen.signatureAgent, created: params.created, nonce: params.nonce };
}
