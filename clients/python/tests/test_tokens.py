"""Offline verification of gca_ tokens the service issued, against its JWKS."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta

import httpx
import pytest

from spend_auth import SpendAuth, TokenError

from .conftest import World


@pytest.fixture(scope="module")
def token(world: World) -> str:
    with SpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        d = c.authorize(world.request(amount=777))
    assert d.authorization_token
    return d.authorization_token


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def test_a_good_token_verifies_offline_and_the_jwks_is_fetched_once(world: World, token: str) -> None:
    fetched: list[str] = []
    hooks = {"request": [lambda r: fetched.append(r.url.path)]}
    with SpendAuth(base_url=world.base_url, api_key=world.api_key, http_client=httpx.Client(event_hooks=hooks)) as c:
        claims = c.verify_token(token, account=world.account_id, livemode=True)
        again = c.verify_token(token, account=world.account_id, livemode=True)
        # A key id it does not know: looked up again at most once a minute, so not now.
        header, payload, sig = token.removeprefix("gca_").split(".")
        other = {**json.loads(_unb64(header)), "kid": "not-a-published-key"}
        with pytest.raises(TokenError) as caught:
            c.verify_token("gca_" + ".".join([_b64(json.dumps(other).encode()), payload, sig]), account=world.account_id, livemode=True)
    assert caught.value.code == "unknown_key"
    assert claims == again and claims["aud"] == world.account_id and claims["livemode"] is True
    assert claims["amount"] == 777 and claims["sub"] == world.agent_id and claims["jti"].startswith("dec_")
    assert fetched == ["/v1/.well-known/jwks.json"]


@pytest.mark.parametrize(
    ("account", "livemode", "param"),
    [("acct_someoneelse", True, "aud"), (None, False, "livemode")],
    ids=["wrong account", "wrong mode"],
)
def test_a_token_of_another_account_or_mode_is_refused(client: SpendAuth, world: World, token: str, account: str | None, livemode: bool, param: str) -> None:
    with pytest.raises(TokenError) as caught:
        client.verify_token(token, account=account or world.account_id, livemode=livemode)
    assert caught.value.code == "wrong_audience" and caught.value.param == param and caught.value.status is None


def test_a_tampered_token_is_refused(client: SpendAuth, world: World, token: str) -> None:
    header, payload, sig = token.removeprefix("gca_").split(".")
    richer = {**json.loads(_unb64(payload)), "amount": 777_000}
    with pytest.raises(TokenError) as caught:
        client.verify_token("gca_" + ".".join([header, _b64(json.dumps(richer).encode()), sig]), account=world.account_id, livemode=True)
    assert caught.value.code == "bad_signature"
    flipped = sig[:-3] + ("A" if sig[-3] != "A" else "B") + sig[-2:]
    with pytest.raises(TokenError) as caught:
        client.verify_token("gca_" + ".".join([header, payload, flipped]), account=world.account_id, livemode=True)
    assert caught.value.code == "bad_signature"


def test_malformed_and_expired(client: SpendAuth, world: World, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in (token.removeprefix("gca_"), "gca_not.a.jws", "gca_"):
        with pytest.raises(TokenError) as caught:
            client.verify_token(bad, account=world.account_id, livemode=True)
        assert caught.value.code == "malformed"
    # The token lives 15 minutes: checked on a clock 20 minutes ahead (PyJWT's own clock).
    import jwt.api_jwt

    class Later(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return datetime.now(tz) + timedelta(minutes=20)

    monkeypatch.setattr(jwt.api_jwt, "datetime", Later)
    with pytest.raises(TokenError) as caught:
        client.verify_token(token, account=world.account_id, livemode=True)
    assert caught.value.code == "expired"


def test_an_audit_checkpoint_behind_gca_is_not_a_token(client: SpendAuth, world: World, token: str) -> None:
    """The service signs audit checkpoints with the same key (aud = the account, livemode, no exp):
    one presented as a token is refused, by its header's typ."""
    verified = world.admin.get("/audit-logs/verify").raise_for_status().json()
    checkpoint = verified["checkpoint"]
    assert isinstance(checkpoint, str) and json.loads(_unb64(checkpoint.split(".")[0]))["typ"] == "audit-checkpoint+jwt"
    claims = json.loads(_unb64(checkpoint.split(".")[1]))
    assert claims["aud"] == world.account_id and claims["livemode"] is True and "exp" not in claims
    with pytest.raises(TokenError) as caught:
        client.verify_token("gca_" + checkpoint, account=world.account_id, livemode=True)
    assert (caught.value.code, caught.value.param) == ("malformed", "typ")
