"""(a) and (b) of the AP2 vectors (test/fixtures/ap2/README.md): chains AP2's own SDK closes, that
our verifier must take. Run with AP2's SDK on PYTHONPATH (see the README):

  ap2-closes.py our-credential.json OUT.json   (a) our credential, closed by AP2's MandateClient.present
  ap2-closes.py --ap2-root OUT.json            (b) a root AP2's primitives issue in DECISIONS §20's shape
                                                   (typ mandate+sd-jwt, iss/jti/iat/exp), closed the same way

Each chain is then checked by AP2's MandateClient.verify and PaymentMandateChain.verify, and OUT
holds the chain, what the verifier was told, and what AP2 answered (payloads, violations, reference).
"""
import json
import sys
import unittest.mock
from pathlib import Path

from jwcrypto.jwk import JWK
from ap2.sdk.constraints import MandateContext
from ap2.sdk.disclosure_metadata import DisclosureMetadata
from ap2.sdk.generated.open_payment_mandate import (AgentRecurrence, AllowedPayees, AllowedPaymentInstruments, AmountRange, Budget,
                                                    ExecutionDate, OpenPaymentMandate, PaymentReference)
from ap2.sdk.generated.payment_mandate import PaymentMandate
from ap2.sdk.generated.types.amount import Amount
from ap2.sdk.generated.types.merchant import Merchant
from ap2.sdk.generated.types.payment_instrument import PaymentInstrument
from ap2.sdk.mandate import MandateClient
from ap2.sdk.payment_mandate_chain import PaymentMandateChain
from ap2.sdk.sdjwt import common
from ap2.sdk.utils import compute_sha256_b64url

FIXTURES = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'ap2'
# The same pinned values as inputs.ts.
T = 1_795_860_800
ISS = 'spend-auth'
JTI = 'mdt_0123456789abcdef0123456789ab'
OPEN_CHECKOUT_HASH = 'Y2hlY2tvdXQtbWFuZGF0ZS1vZi10aGUtY2F0LXN0b3Jl'
TRANSACTION_ID = 'dHJhbnNhY3Rpb24tMDAwMS1hdC10aGUtY2F0LXN0b3Jl'
NONCE = 'ap2-nonce-0001'
CAT_STORE = Merchant(id='M-1', name='Cat Store', website='https://cats.example')

mandate_jwk = json.loads((FIXTURES / 'mandate-signing-key.json').read_text())
agent_jwk = json.loads((FIXTURES / 'agent-key.json').read_text())
mandate_key = JWK(**mandate_jwk)
agent_key = JWK(**agent_jwk)
mandate_public = {k: mandate_jwk[k] for k in ('kty', 'crv', 'x', 'y', 'kid')}


def ap2_root():
    """(b) An open mandate built with AP2's models and issued by its SD-JWT helpers, in §20's shape."""
    om = OpenPaymentMandate(
        constraints=[
            AmountRange(currency='USD', max=5000, min=100),
            AllowedPayees(allowed=[CAT_STORE, Merchant(id='M-2', name='Dog Store')]),
            AllowedPaymentInstruments(allowed=[PaymentInstrument(id='pi_1', type='card')]),
            Budget(max=120.0, currency='USD'),
            # The typed model keeps a Frequency enum that json.dumps cannot write: build it unvalidated.
            AgentRecurrence.model_construct(type='payment.agent_recurrence', frequency='MONTHLY', max_occurrences=3),
            ExecutionDate(not_before='2026-11-01T00:00:00Z', not_after='2027-01-01T00:00:00Z'),
            PaymentReference(conditional_transaction_id=OPEN_CHECKOUT_HASH),
        ],
        cnf={'jwk': {k: agent_jwk[k] for k in ('kty', 'crv', 'x', 'y')}},
        iat=T,
        exp=T + 3600,
    )
    claims = common.selectively_disclosable_claims(common.delegate_claims_from_model(om), DisclosureMetadata.from_model(om),
                                                   extra_claims={'iss': ISS, 'jti': JTI, 'iat': T, 'exp': T + 3600})
    return common.issue_sd_jwt(claims=claims, issuer_key=mandate_key, header_params={'typ': 'mandate+sd-jwt', 'kid': mandate_jwk['kid']},
                               add_decoy_claims=False, serialization_format='compact').sd_jwt_issuance


def main(argv):
    if argv[:1] == ['--ap2-root']:
        open_token, out_path = ap2_root(), argv[1]
    else:
        open_token, out_path = json.loads(Path(argv[0]).read_text())['credential'], argv[1]
    payment = PaymentMandate(transaction_id=TRANSACTION_ID, payee=CAT_STORE, payment_amount=Amount(amount=2500, currency='USD'),
                             payment_instrument=PaymentInstrument(id='pi_1', type='card'), iat=T, exp=T + 600)
    # The hop stamps iat = int(time.time()): pin it.
    with unittest.mock.patch('time.time', return_value=float(T)):
        chain = MandateClient().present(holder_key=agent_key, mandate_token=open_token, payloads=[payment], nonce=NONCE, aud=ISS)
    context = {'total_amount': 0, 'total_uses': 0}
    out = {'chain': chain, 'mandate_public_jwk': mandate_public, 'aud': ISS, 'nonce': NONCE, 'now': T + 60,
           'open_checkout_hash': OPEN_CHECKOUT_HASH, 'transaction_id': TRANSACTION_ID, 'mandate_context': context}
    payloads = MandateClient().verify(token=chain, key_or_provider=lambda _t: mandate_key, expected_aud=ISS, expected_nonce=NONCE, current_time=T + 60)
    out['payloads'] = payloads
    out['violations'] = PaymentMandateChain.parse(payloads).verify(expected_transaction_id=TRANSACTION_ID,
                                                                    expected_open_checkout_hash=OPEN_CHECKOUT_HASH,
                                                                    mandate_context=MandateContext(**context))
    out['reference'] = compute_sha256_b64url(MandateClient().get_closed_mandate_jwt(chain))
    Path(out_path).write_text(json.dumps(out, indent=2, sort_keys=True) + '\n')
    print(f"violations={out['violations']}")


if __name__ == '__main__':
    main(sys.argv[1:])
