/**
 * Agents that sign their requests (DECISIONS §19), for tests: keys, their registration, and
 * signatures made by signers we did not write — web-bot-auth 0.1.3 (Ed25519; it pins the draft-era
 * http-message-sig 0.2.0, nested under it) and http-message-signatures 1.0.6 (P-256, Ed25519) —
 * plus a raw builder on http-message-sig 0.3.0 only for inputs those two refuse to make (a short
 * nonce, a missing parameter, a lifetime over 300 s, a wrong alg).
 */
import http from 'node:http';
import { createHash, createHmac, generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { createSignatureSync, type SignatureComponent, type SignatureParameters } from 'http-message-sig';
import type { Db } from '../../src/db/database.js';
import { newId } from '../../src/kernel/ids.js';
import type { AgentKeyAlg } from '../../src/kernel/caller.js';
import { agentWithPolicy, type Client } from './context.js';

export interface TestAgentKey {
  alg: AgentKeyAlg;
  privateKey: KeyObject;
  privateJwk: JWK;
  publicJwk: Record<string, string>;
  thumbprint: string;
}

export async function agentKeyFrom(alg: AgentKeyAlg, privateKey: KeyObject): Promise<TestAgentKey> {
  const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
  const publicJwk: Record<string, string> =
    alg === 'ed25519' ? { kty: 'OKP', crv: 'Ed25519', x: privateJwk.x! } : { kty: 'EC', crv: 'P-256', x: privateJwk.x!, y: privateJwk.y! };
  return { alg, privateKey, privateJwk, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk as JWK, 'sha256') };
}

export const newAgentKey = (alg: AgentKeyAlg = 'ed25519') =>
  agentKeyFrom(alg, alg === 'ed25519' ? generateKeyPairSync('ed25519').privateKey : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);

/**
 * Registers `key` for `agentId` with a direct INSERT into agent_keys, not through
 * `POST /v1/agents/:id/keys` (that route belongs to the agent-keys resource, tested on its own).
 */
export async function registerKeyDirect(
  db: Db,
  agentId: string,
  key: TestAgentKey,
  opts: { directoryId?: string } = {},
): Promise<{ id: string }> {
  const agent = await db.selectFrom('agents').select(['account_id', 'livemode']).where('id', '=', agentId).executeTakeFirstOrThrow();
  const id = newId('akey');
  await db
    .insertInto('agent_keys')
    .values({
      id,
      account_id: agent.account_id,
      livemode: agent.livemode,
      agent_id: agentId,
      name: null,
      alg: key.alg,
      jwk: JSON.stringify(key.publicJwk),
      thumbprint: key.thumbprint,
      directory_id: opts.directoryId ?? null,
      status: 'active',
      last_used_at: null,
      revoked_at: null,
      created_at: new Date(),
    })
    .execute();
  return { id };
}

/** Revokes a key behind every cache's back (a direct UPDATE, as another process's revocation looks to this one). */
export async function revokeKeyDirect(db: Db, id: string): Promise<void> {
  await db.updateTable('agent_keys').set({ status: 'revoked', revoked_at: new Date() }).where('id', '=', id).execute();
}

/** Sets the policy flag with a direct UPDATE (callers already cached keep the old flag up to 5 s). */
export async function requireSignedDirect(db: Db, policyId: string, on = true): Promise<void> {
  await db.updateTable('policies').set({ require_signed_requests: on }).where('id', '=', policyId).execute();
}

/** RFC 9530 `Content-Digest` of `body`. */
export const contentDigest = (body: Buffer | string, alg: 'sha-256' | 'sha-512' = 'sha-256') =>
  `${alg}=:${createHash(alg === 'sha-256' ? 'sha256' : 'sha512').update(body).digest('base64')}:`;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A request to sign: an absolute URL, its headers (lower-case names) and body. */
export interface Unsigned {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
}

/** The components DECISIONS §19 asks for, given the request. */
export function requiredComponents(req: Unsigned): string[] {
  return [
    '@method',
    '@authority',
    '@path',
    ...(new URL(req.url).search ? ['@query'] : []),
    ...(req.body && req.body.length > 0 ? ['content-digest'] : []),
    ...(req.headers['signature-agent'] !== undefined ? ['signature-agent'] : []),
    ...(Object.keys(req.headers).some((h) => h.toLowerCase() === 'idempotency-key') ? ['idempotency-key'] : []),
  ];
}

export interface SignOptions {
  created?: number;
  expires?: number;
  label?: string;
  components?: string[];
  nonce?: string;
}

/** With a body: its Content-Digest, unless the request already has one. */
const withDigest = (req: Unsigned): Unsigned =>
  req.body && req.body.length > 0 && req.headers['content-digest'] === undefined ? { ...req, headers: { ...req.headers, 'content-digest': contentDigest(req.body) } } : req;

/** Ed25519 with Cloudflare's web-bot-auth 0.1.3 (tag web-bot-auth, a 64-byte nonce, `alg`). Returns the headers to send. */
export async function signWebBotAuth(req: Unsigned, key: TestAgentKey, opts: SignOptions = {}): Promise<Record<string, string>> {
  const r = withDigest(req);
  const created = opts.created ?? nowSeconds();
  const signer = await signerFromJWK(key.privateJwk as JsonWebKey);
  const h = await signatureHeaders({ method: r.method, url: r.url, headers: r.headers }, signer, {
    created: new Date(created * 1000),
    expires: new Date((opts.expires ?? created + 60) * 1000),
    components: opts.components ?? requiredComponents(r),
    ...(opts.label ? { key: opts.label } : {}),
    ...(opts.nonce ? { nonce: opts.nonce } : {}),
  });
  return { ...r.headers, signature: h.Signature, 'signature-input': h['Signature-Input'] };
}

/** With http-message-signatures 1.0.6 (P-256 or Ed25519): `nonce` and `tag` must be listed, its defaults leave them out. */
export async function signHttpMessageSignatures(req: Unsigned, key: TestAgentKey, opts: SignOptions = {}): Promise<Record<string, string>> {
  const r = withDigest(req);
  const created = opts.created ?? nowSeconds();
  const signed = await httpbis.signMessage(
    {
      key: { id: key.thumbprint, alg: key.alg, sign: createSigner(key.privateKey, key.alg).sign },
      name: opts.label ?? 'sig1',
      params: ['created', 'expires', 'keyid', 'alg', 'nonce', 'tag'],
      paramValues: { created: new Date(created * 1000), expires: new Date((opts.expires ?? created + 60) * 1000), nonce: opts.nonce ?? randomNonce(), tag: 'web-bot-auth' },
      fields: opts.components ?? requiredComponents(r),
    },
    { method: r.method, url: r.url, headers: { ...r.headers } },
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export const randomNonce = () => createHash('sha256').update(`${Math.random()}${process.hrtime.bigint()}`).digest('base64url');

/**
 * The raw builder (http-message-sig 0.3.0 createSignatureSync): any parameters and components,
 * signed with the key's own algorithm unless `signAs` says otherwise (`hmac-sha256` signs with the
 * public key's bytes as the secret, as an alg-confusion attacker would).
 */
export function signRaw(
  req: Unsigned,
  key: TestAgentKey,
  opts: { label?: string; components?: SignatureComponent[]; parameters?: Record<string, string | number | undefined>; signAs?: string; algorithm?: string } = {},
): Record<string, string> {
  const r = withDigest(req);
  const created = nowSeconds();
  const parameters: Record<string, string | number | undefined> = { created, expires: created + 60, keyid: key.thumbprint, nonce: randomNonce(), tag: 'web-bot-auth', ...opts.parameters };
  for (const k of Object.keys(parameters)) if (parameters[k] === undefined) delete parameters[k];
  const signer = {
    algorithm: opts.algorithm ?? opts.signAs ?? key.alg,
    sign: (data: Uint8Array): Uint8Array => {
      const as = opts.signAs ?? key.alg;
      if (as === 'hmac-sha256') return new Uint8Array(createHmac('sha256', Buffer.from(key.publicJwk.x!, 'base64url')).update(data).digest());
      if (key.alg === 'ed25519') return new Uint8Array(nodeSign(null, data, key.privateKey));
      return new Uint8Array(nodeSign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }));
    },
  };
  const fields = Object.entries(r.headers).map(([name, value]) => ({ name, value }));
  const out = createSignatureSync(
    { kind: 'request', method: r.method, targetUri: r.url, fields },
    { label: opts.label ?? 'sig1', components: opts.components ?? requiredComponents(r), parameters: parameters as SignatureParameters, signer },
  );
  return { ...r.headers, signature: out.signature, 'signature-input': out.signatureInput };
}

/**
 * Sends a request as signed (or not): the bearer key, the headers (a `host` among them is sent as
 * the Host field, as a proxy would), the body bytes exactly; one connection per request.
 */
export function send(baseUrl: string, bearer: string, req: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | undefined }) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${bearer}`,
    ...(req.body ? { 'content-type': 'application/json', 'content-length': String(req.body.length) } : {}),
    ...req.headers,
  };
  return new Promise<{ status: number; body: any; text: string; headers: Headers }>((resolve, reject) => {
    const r = http.request(baseUrl + req.path, { method: req.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode!, text, body: (res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text, headers: out });
      });
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * A signed request in one call: `sign` makes the signature headers for the request as it will be
 * sent (URL on `baseUrl`, content-type JSON with a body).
 */
export async function sendSigned(
  baseUrl: string,
  bearer: string,
  req: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
  sign: (u: Unsigned) => Promise<Record<string, string>> | Record<string, string>,
) {
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(JSON.stringify(req.body));
  const unsigned: Unsigned = { method: req.method, url: baseUrl + req.path, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...req.headers }, body };
  const headers = await sign(unsigned);
  return { ...(await send(baseUrl, bearer, { method: req.method, path: req.path, headers, body })), sent: { headers, body } };
}

/** An agent with an agent-role API key (`bearer`) and one registered Ed25519 key (`ed`, row `edId`). */
export interface SigningAgent {
  agentId: string;
  policyId: string;
  bearer: string;
  ed: TestAgentKey;
  edId: string;
}

/** A fresh agent bound to a policy with a large budget; `required` sets require_signed_requests before the key is first used. */
export async function signingAgent(db: Db, admin: Client, opts: { required?: boolean; key?: TestAgentKey } = {}): Promise<SigningAgent> {
  const { agentId, policyId } = await agentWithPolicy(admin, { budget_monthly: 100_000_000, budget_single_max: 1_000_000 });
  if (opts.required) await requireSignedDirect(db, policyId);
  const key = await admin.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId });
  if (key.status !== 201) throw new Error(`agent key not created: ${key.status} ${key.text}`);
  const ed = opts.key ?? (await newAgentKey('ed25519'));
  const { id } = await registerKeyDirect(db, agentId, ed);
  return { agentId, policyId, bearer: key.body.key, ed, edId: id };
}

export const spendOf = (agentId: string, amount = 100) => ({ agent_id: agentId, amount, currency: 'USD', vendor: 'shop.example' });
