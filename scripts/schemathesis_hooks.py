"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS)."""

import os
import re
import uuid

import schemathesis

# The id (key_…) of the API key the run authenticates with.
OWN_KEY_ID = os.environ.get("SPEND_AUTH_FUZZ_KEY_ID", "")


@schemathesis.hook
def before_call(context, case, kwargs):
    # Revoking the run's own key is allowed (an admin may revoke any key of its account), but it
    # would leave every later call of the run at 401: such a case revokes an unknown id instead.
    if (
        OWN_KEY_ID
        and case.operation.method.upper() == "DELETE"
        and case.operation.path == "/v1/api-keys/{id}"
        and (case.path_parameters or {}).get("id") == OWN_KEY_ID
    ):
        case.path_parameters["id"] = "key_notthefuzzerskey"


# A client sends a new Idempotency-Key with each new request; generated cases reuse the same valid
# key across a stateful sequence, so a later create replays the first one's answer (the same id,
# even after that object was deleted), which is what the key is for. Valid keys get a fresh value;
# malformed ones are kept, so their refusal is still checked.
VALID_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


@schemathesis.hook
def map_headers(context, headers):
    if headers:
        for name in list(headers):
            if name.lower() == "idempotency-key" and isinstance(headers[name], str) and VALID_IDEMPOTENCY_KEY.match(headers[name]):
                headers[name] = str(uuid.uuid4())
    return headers
