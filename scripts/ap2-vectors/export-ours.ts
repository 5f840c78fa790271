/**
 * Our side of the AP2 vectors (test/fixtures/ap2/README.md): credentials issued by our codec with
 * the fixed test mandate key, closed with `closeMandate` and the fixed agent key, written as the
 * input AP2's reference verifier (check-chain.py, check-receipts.py) reads. Times are pinned
 * (inputs.ts); salts and ECDSA signatures are fresh on every run.
 *
 *   npx tsx scripts/ap2-vectors/export-ours.ts credential      our credential alone, for ap2-closes.py (a)
 *   npx tsx scripts/ap2-vectors/export-ours.ts chain           (c) every constraint we issue, closed by us
 *   npx tsx scripts/ap2-vectors/export-ours.ts budget          (d) budget 29 cents, a payment of 29 cents
 *   npx tsx scripts/ap2-vectors/export-ours.ts ed25519-cnf     (e) an open mandate bound to an Ed25519 key
 *   npx tsx scripts/ap2-vectors/export-ours.ts receipts FILE   (f) a Success and two Error receipts for FILE's chain, by the service's signer
 */
import fs from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { closeMandate } from '../../src/client/mandate-close.js';
import { buildOpenMandate, issueCredential, type MandateTerms, type OpenMandate } from '../../src/mandates/credential.js';
import { mandateKeysFromJwks } from '../../src/mandates/mandate-signing-keys.js';
import { signReceipt, type ReceiptInput } from '../../src/mandates/receipt.js';
import { sha256B64url } from '../../src/mandates/sd-jwt-parse.js';
import { AGENT_KEY, BUDGET_TERMS, CLAIMS, FULL_TERMS, ISS, MANDATE_KEY, NONCE, OPEN_CHECKOUT_HASH, PAYMENT, T, TRANSACTION_ID, VERIFY_AT, publicOf } from './inputs.js';

const keys = mandateKeysFromJwks([MANDATE_KEY]);
const cnf = { kty: 'EC' as const, crv: 'P-256' as const, x: AGENT_KEY.x, y: AGENT_KEY.y };

const issue = (open: OpenMandate) => issueCredential(keys, CLAIMS, open);
const openOf = (terms: MandateTerms) => buildOpenMandate(terms, cnf, T, T + 3600);

/** What check-chain.py reads: the chain and what the verifier is told (key, aud, nonce, clock, checkout, context). */
const checkInput = (chain: string, context = { total_amount: 0, total_uses: 0 }) => ({
  chain,
  mandate_public_jwk: publicOf(MANDATE_KEY),
  aud: ISS,
  nonce: NONCE,
  now: VERIFY_AT,
  open_checkout_hash: OPEN_CHECKOUT_HASH,
  transaction_id: TRANSACTION_ID,
  mandate_context: context,
});

async function main(mode: string | undefined, arg: string | undefined): Promise<unknown> {
  switch (mode) {
    case 'credential': {
      const open = openOf(FULL_TERMS);
      return { credential: await issue(open), open_mandate: open, ...CLAIMS, mandate_public_jwk: publicOf(MANDATE_KEY), open_checkout_hash: OPEN_CHECKOUT_HASH };
    }
    case 'chain':
      return checkInput(await closeMandate(await issue(openOf(FULL_TERMS)), { ...PAYMENT, agentJwk: AGENT_KEY }));
    case 'budget': {
      const payment = { ...PAYMENT, payment_amount: { amount: 29, currency: 'USD' }, agentJwk: AGENT_KEY };
      return checkInput(await closeMandate(await issue(openOf(BUDGET_TERMS)), payment));
    }
    case 'ed25519-cnf': {
      // buildOpenMandate takes only P-256 keys; this open mandate is written by hand to see AP2 refuse it.
      const x = (generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as { x: string }).x;
      const open = { ...openOf(FULL_TERMS), cnf: { jwk: { kty: 'OKP', crv: 'Ed25519', x } } } as unknown as OpenMandate;
      return checkInput(await closeMandate(await issue(open), { ...PAYMENT, agentJwk: AGENT_KEY }));
    }
    case 'receipts': {
      const { input } = JSON.parse(fs.readFileSync(arg!, 'utf8')) as { input: { chain: string } };
      const closedJwt = input.chain.slice(input.chain.lastIndexOf('~~') + 2).split('~', 1)[0]!;
      const reference = sha256B64url(closedJwt);
      // Signed by the service's own signer (src/mandates/receipt.ts), as POST /v1/mandates/verify answers.
      const common = { issuer: ISS, audience: 'acct_0123456789abcdef01234567', livemode: false, reference, now: new Date(VERIFY_AT * 1000) };
      const decisionId = 'dec_0123456789abcdef01234567';
      const sign = (paymentId: string, outcome: ReceiptInput['outcome']) => signReceipt(keys, { ...common, paymentId, outcome });
      return {
        chain: input.chain,
        reference,
        mandate_public_jwk: publicOf(MANDATE_KEY),
        receipts: {
          success: sign(decisionId, { status: 'Success' }),
          error: sign(decisionId, { status: 'Error', error: 'invalid_mandate', error_description: 'payment.budget: 2500 USD would take the budget past 120.00 USD' }),
          error_before_decision: sign('req_5b0f8c1e2d3a4b5c6d7e8f90', { status: 'Error', error: 'invalid_credential', error_description: 'the closed mandate is not signed by the mandate\'s cnf key' }),
        },
      };
    }
    default:
      throw new Error('usage: export-ours.ts credential | chain | budget | ed25519-cnf | receipts <we-issue.json>');
  }
}

process.stdout.write(`${JSON.stringify(await main(process.argv[2], process.argv[3]), null, 2)}\n`);
