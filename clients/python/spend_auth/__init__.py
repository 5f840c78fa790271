"""Client of the Spend Authorization API (spend-auth).

    from spend_auth import SpendAuth

    with SpendAuth(base_url="http://127.0.0.1:3000/v1", api_key="gc_test_…") as client:
        decision = client.authorize({"agent_id": "agt_…", "amount": 1999, "currency": "USD",
                                     "vendor": "openai.com"}, wait=60)
        if decision.decision == "approved":
            pay(decision.authorization_token)

The generated client of every operation is ``spend_auth._generated`` (openapi-python-client), from
the OpenAPI document whose ``info.version`` is ``API_VERSION``. Tools for agent frameworks:
``spend_auth.tools`` (extras ``[openai-agents]``, ``[langchain]``).
"""

from ._async import AsyncSpendAuth
from ._decision import Decision
from ._generated._meta import API_VERSION, __version__
from ._http import AuthorizeRequest
from ._sync import SpendAuth
from .errors import APIConnectionError, RateLimitError, SpendAuthError, TokenError, WebhookVerificationError
from .webhooks import SeenEventIds, verify_webhook

__all__ = [
    "API_VERSION",
    "APIConnectionError",
    "AsyncSpendAuth",
    "AuthorizeRequest",
    "Decision",
    "RateLimitError",
    "SeenEventIds",
    "SpendAuth",
    "SpendAuthError",
    "TokenError",
    "WebhookVerificationError",
    "__version__",
    "verify_webhook",
]
