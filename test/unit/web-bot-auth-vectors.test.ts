/**
 * The Web Bot Auth draft's own test vectors (test/fixtures/web-bot-auth, copied from Cloudflare's
 * web-bot-auth) against DECISIONS §19. Each Ed25519 vector verifies through our step 7 (the
 * service's `checkSignature`, http-message-sig 0.3.0 with our node:crypto verifier) with the clock
 * at its `created`; the RSA-PSS ones are refused, as only Ed25519 and P-256 keys register. As
 * whole requests the vectors fail by design: they cover only `@authority` and live an hour or more.
 */
import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseAgentJwk } from '../../src/agent-keys/jwk.js';
import { checkSignature } from '../../src/agent-keys/request-signature.service.js';
import { checkCoverage, checkParameters, chooseLabel, parseSignatureFields, type ChosenLabel, type SignedMessage } from '../../src/agent-keys/request-signature.js';
import type { UsableKey } from '../../src/agent-keys/agent-key-cache.js';
import { verifierOf } from '../../src/agent-keys/verifiers.js';
import { AppError } from '../../src/kernel/errors.js';

interface Vector {
  key: Record<string, string>;
  target_url: string;
  created_ms: number;
  expires_ms: number;
  nonce: string;
  label: string;
  signature: string;
  signature_input: string;
  signature_agent?: string;
}

const FIXTURES = 'test/fixtures/web-bot-auth';
const vectors = ['web_bot_auth_architecture_v1.json', 'web_bot_auth_architecture_v2.json'].flatMap((file) =>
  (JSON.parse(fs.readFileSync(`${FIXTURES}/${file}`, 'utf8')) as Vector[]).map((v) => ({ name: `${file.replace('web_bot_auth_architecture_', '').replace('.json', '')} ${v.key.kty} ${v.label}`, v })),
);
const ed25519Vectors = vectors.filter(({ v }) => v.key.kty === 'OKP');
const rsaVectors = vectors.filter(({ v }) => v.key.kty === 'RSA');

const TEST_KEY_THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';

/** The vector's request as it reaches us: GET of its URL (no component depends on the method), its fields, no body. */
function messageOf(v: Vector): SignedMessage {
  const url = new URL(v.target_url);
  return {
    method: 'GET',
    origin: url.origin,
    target: url.pathname + url.search,
    fields: [
      { name: 'signature', value: v.signature },
      { name: 'signature-input', value: v.signature_input },
      ...(v.signature_agent === undefined ? [] : [{ name: 'signature-agent', value: v.signature_agent }]),
    ],
    body: Buffer.alloc(0),
  };
}

/** RFC 9421 B.1.4's public key as registered in test mode, ready to verify with. */
async function testKey(): Promise<UsableKey> {
  const { kty, crv, x } = ed25519Vectors[0]!.v.key;
  const parsed = await parseAgentJwk({ kty, crv, x }, { livemode: false });
  return { id: 'akey_rfc9421_ed25519', thumbprint: parsed.thumbprint, alg: parsed.alg, verifier: verifierOf(parsed.alg, parsed.jwk), directory: null };
}

/** Step 3 on the signature fields alone (v1's Signature-Agent is a bare string, which step 2 refuses: see below). */
async function chosenFor(v: Vector): Promise<ChosenLabel | undefined> {
  const parsed = parseSignatureFields({ fields: messageOf(v).fields.filter((f) => f.name !== 'signature-agent') });
  if (parsed.kind !== 'signed') throw new Error('the vector carries no web-bot-auth signature');
  return chooseLabel(parsed, [await testKey()], Date.now());
}

function failure(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return `${err.code}:${err.param}`;
    throw err;
  }
}

test('the fixtures hold both kinds of vector, the Ed25519 ones signed with RFC 9421 B.1.4', () => {
  expect(ed25519Vectors).toHaveLength(4);
  expect(rsaVectors).toHaveLength(4);
  for (const { v } of ed25519Vectors) expect(v.signature_input).toContain(`keyid="${TEST_KEY_THUMBPRINT}"`);
});

describe('Ed25519 vectors verify at step 7 with the clock at their created', () => {
  test.each(ed25519Vectors)('$name', async ({ v }) => {
    const chosen = await chosenFor(v);
    expect(chosen?.key.thumbprint).toBe(TEST_KEY_THUMBPRINT);
    const created = v.created_ms / 1000;
    const params = { created, expires: v.expires_ms / 1000, keyid: TEST_KEY_THUMBPRINT, nonce: v.nonce };
    await expect(checkSignature(chosen!, params, messageOf(v))).resolves.toBeUndefined();

    // The same check refuses one changed byte of what was signed: the authority.
    const elsewhere = { ...messageOf(v), origin: 'https://example.org' };
    await expect(checkSignature(chosen!, params, elsewhere)).rejects.toMatchObject({ code: 'signature_invalid' });
  });
});

describe('RSA-PSS vectors are refused', () => {
  test('their key does not register (only Ed25519 and P-256), so their keyid names no key (step 3)', async () => {
    const { kty, n, e } = rsaVectors[0]!.v.key;
    await expect(parseAgentJwk({ kty, n, e }, { livemode: false })).rejects.toMatchObject({ param: 'jwk' });
    for (const { v } of rsaVectors) expect(await chosenFor(v)).toBeUndefined();
  });
});

describe('as whole requests the vectors fail §19 by design', () => {
  test.each(ed25519Vectors)('$name: a lifetime over 300 s (step 4) and only @authority covered (step 5)', async ({ v }) => {
    const chosen = (await chosenFor(v))!;
    expect(failure(() => checkParameters(chosen, v.created_ms / 1000))).toBe('signature_invalid:Signature-Input');
    expect(failure(() => checkCoverage(chosen, messageOf(v)))).toBe('signature_invalid:Signature-Input');
  });

  test("v1's Signature-Agent, a bare string rather than a dictionary, already fails step 2", () => {
    const v = ed25519Vectors.find(({ name, v }) => name.startsWith('v1') && v.signature_agent !== undefined)!.v;
    expect(failure(() => parseSignatureFields(messageOf(v)))).toBe('signature_invalid:Signature-Agent');
  });
});
