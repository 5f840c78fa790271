"""(f) of the AP2 vectors (test/fixtures/ap2/README.md): AP2's ReceiptClient.verify_receipt run on
the receipts export-ours.ts signed. Run with AP2's SDK on PYTHONPATH:

  check-receipts.py IN.json OUT.json

IN: {chain, reference, mandate_public_jwk, receipts: {name: jws}}. The store callback knows one
reference: the one AP2 computes from the chain's closed mandate. OUT: {input: IN, reference, results: {name: answer}}.
"""
import json
import sys
from pathlib import Path

from jwcrypto.jwk import JWK
from ap2.sdk.mandate import MandateClient
from ap2.sdk.receipt_wrapper import ReceiptClient
from ap2.sdk.utils import compute_sha256_b64url

v = json.loads(Path(sys.argv[1]).read_text())
key = JWK(**v['mandate_public_jwk'])
reference = compute_sha256_b64url(MandateClient().get_closed_mandate_jwt(v['chain']))
results = {name: dict(ReceiptClient().verify_receipt(jws, key, has_reference_in_store_cb=lambda r: r == reference, is_payment_receipt=True))
           for name, jws in v['receipts'].items()}
Path(sys.argv[2]).write_text(json.dumps({'input': v, 'reference': reference, 'results': results}, indent=2, sort_keys=True) + '\n')
print(json.dumps(results))
