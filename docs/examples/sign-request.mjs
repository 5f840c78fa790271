// Signs one request to the service as DECISIONS §19 (docs/api.md, "Signed requests") verifies it,
// with Cloudflare's web-bot-auth package, and prints a curl config for `curl -K -`: the URL, the
// method, the body file and the headers (Content-Digest, Signature-Input, Signature).
//
//   node docs/examples/sign-request.mjs [--signature-agent https://agent.example.com] \
//     agent.private.jwk POST "$API/authorize" body.json \
//     | curl -s -K - -H "Authorization: Bearer $AGENT_KEY"
//
// The key file holds the agent key's private JWK (Ed25519, or P-256); its public part is what was
// registered with POST /v1/agents/:id/keys. The signature covers @method, @authority, @path,
// @query (when the URL has a query), content-digest (when there is a body) and Signature-Agent
// (when given), tag "web-bot-auth", and lives 60 seconds: sign again for every attempt.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { helpers, jwkToKeyID, signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';

const LIFETIME_SECONDS = 60;

const { values, positionals } = parseArgs({ options: { 'signature-agent': { type: 'string' } }, allowPositionals: true });
const [keyFile, method, target, bodyFile] = positionals;
if (!keyFile || !method || !target) {
  console.error('usage: sign-request.mjs [--signature-agent https://origin] <private-jwk-file> <METHOD> <URL> [<body-file>]');
  process.exit(2);
}

const jwk = JSON.parse(fs.readFileSync(keyFile, 'utf8'));
/** web-bot-auth signs with Ed25519; P-256 is a WebCrypto signer of the same shape (ECDSA's output is already r‖s). */
async function signerOf(key) {
  if (key.kty === 'OKP' && key.crv === 'Ed25519') return signerFromJWK(key);
  if (key.kty === 'EC' && key.crv === 'P-256') {
    const privateKey = await crypto.subtle.importKey('jwk', key, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    const keyid = await jwkToKeyID(key, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
    const sign = async (data) => new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, new TextEncoder().encode(data)));
    return { alg: 'ecdsa-p256-sha256', keyid, sign };
  }
  throw new Error('the key must be a private Ed25519 (kty OKP) or P-256 (kty EC) JWK');
}
if (typeof jwk.d !== 'string') throw new Error('the key file must hold the private JWK (with d)');

// The URL as it will be sent: no fragment, and no bare "?" (an empty query is signed as "?" by
// RFC 9421 but as "" by web-bot-auth's draft-era builder).
const url = new URL(target);
const sent = `${url.origin}${url.pathname}${url.search}`;
const headers = {};
const components = ['@method', '@authority', '@path'];
if (url.search) components.push('@query');
const body = bodyFile ? fs.readFileSync(bodyFile) : Buffer.alloc(0);
if (body.length > 0) {
  headers['Content-Digest'] = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  components.push('content-digest');
}
if (values['signature-agent']) {
  headers['Signature-Agent'] = `sig1="${new URL(values['signature-agent']).origin}"`;
  components.push('signature-agent');
}

const created = new Date();
const signed = await signatureHeaders({ method: method.toUpperCase(), url: sent, headers }, await signerOf(jwk), {
  created,
  expires: new Date(created.getTime() + LIFETIME_SECONDS * 1000),
  components,
  key: 'sig1',
});

// curl's config syntax: a quoted value takes \" and \\ escapes.
const quoted = (text) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const lines = [`url = ${quoted(sent)}`, `request = ${quoted(method.toUpperCase())}`];
if (body.length > 0) lines.push(`data-binary = ${quoted(`@${bodyFile}`)}`, `-H ${quoted('Content-Type: application/json')}`);
for (const [name, value] of Object.entries({ ...headers, ...signed })) lines.push(`-H ${quoted(`${name}: ${value}`)}`);
console.log(lines.join('\n'));
