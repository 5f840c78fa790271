"""(c), (d), (e) of the AP2 vectors (test/fixtures/ap2/README.md): AP2's reference verifier run on a
chain export-ours.ts wrote. Run with AP2's SDK on PYTHONPATH:

  check-chain.py IN.json OUT.json

IN: {chain, mandate_public_jwk, aud, nonce, now, open_checkout_hash, transaction_id, mandate_context}.
OUT: {input: IN, payloads, violations, reference} when MandateClient.verify takes the chain (then
PaymentMandateChain.verify lists the constraint violations), or {input: IN, error} when it refuses it.
"""
import json
import sys
from pathlib import Path

from jwcrypto.jwk import JWK
from ap2.sdk.constraints import MandateContext
from ap2.sdk.mandate import MandateClient
from ap2.sdk.payment_mandate_chain import PaymentMandateChain
from ap2.sdk.utils import compute_sha256_b64url

v = json.loads(Path(sys.argv[1]).read_text())
key = JWK(**v['mandate_public_jwk'])
out = {'input': v}
try:
    payloads = MandateClient().verify(token=v['chain'], key_or_provider=lambda _t: key, expected_aud=v['aud'],
                                      expected_nonce=v['nonce'], current_time=v['now'])
    out['payloads'] = payloads
    context = MandateContext(**v['mandate_context']) if v.get('mandate_context') is not None else None
    out['violations'] = PaymentMandateChain.parse(payloads).verify(expected_transaction_id=v.get('transaction_id'),
                                                                    expected_open_checkout_hash=v.get('open_checkout_hash'),
                                                                    mandate_context=context)
    out['reference'] = compute_sha256_b64url(MandateClient().get_closed_mandate_jwt(v['chain']))
except Exception as e:  # the refusal is the vector's outcome: record it
    out['error'] = f'{type(e).__name__}: {e}'
Path(sys.argv[2]).write_text(json.dumps(out, indent=2, sort_keys=True) + '\n')
print(f"error={out['error']!r}" if 'error' in out else f"violations={out['violations']}")
