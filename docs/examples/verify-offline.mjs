// Offline check of a `gca_` authorization token, as a rail runs it: the signature against the
// published keys, the issuer, the audience (the one account this rail serves) and the mode.
//
//   SPEND_AUTH_BASE_URL=https://spend-auth.example.com/v1 \
//   SPEND_AUTH_ISSUER=https://spend-auth.example.com \
//   SPEND_AUTH_ACCOUNT=acct_… SPEND_AUTH_LIVEMODE=true \
//   node docs/examples/verify-offline.mjs gca_…
//
// Exit code 0 and the claims on stdout when the token may be honoured; 1 and the reason otherwise.
// Offline, a token stays valid until `exp` (15 minutes) even if its agent is frozen meanwhile:
// that lifetime is the rail's exposure. POST /v1/authorization-tokens/verify also checks the agent.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { pathToFileURL } from 'node:url';

/**
 * @param {string} token the `gca_…` token from an approved decision
 * @param {{ jwks: ReturnType<typeof createRemoteJWKSet>, issuer: string, account: string, livemode: boolean }} expected
 */
export async function verifyAuthorizationOffline(token, { jwks, issuer, account, livemode }) {
  if (!token.startsWith('gca_')) throw new Error('not an authorization token');
  // `audience` rejects a genuine token minted for another account.
  const { payload } = await jwtVerify(token.slice('gca_'.length), jwks, { issuer, audience: account, algorithms: ['EdDSA'] });
  // A test-mode token must never pay for real (and a live one never in a test rail).
  if (payload.livemode !== livemode) throw new Error(`token is for ${payload.livemode ? 'live' : 'test'} mode`);
  return payload; // payload.jti is the decision id: charge it at most once, at most payload.amount
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = (name) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  try {
    const base = env('SPEND_AUTH_BASE_URL').replace(/\/$/, '');
    const jwks = createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`), { cacheMaxAge: 300_000 }); // the JWKS max-age
    const claims = await verifyAuthorizationOffline(process.argv[2] ?? '', {
      jwks,
      issuer: env('SPEND_AUTH_ISSUER'),
      account: env('SPEND_AUTH_ACCOUNT'),
      livemode: env('SPEND_AUTH_LIVEMODE') === 'true',
    });
    process.stdout.write(`${JSON.stringify(claims)}\n`);
  } catch (err) {
    process.stderr.write(`rejected: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
