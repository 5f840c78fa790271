"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS)."""

import os

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
