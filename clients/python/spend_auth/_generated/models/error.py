from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.error_error import ErrorError


T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """The error envelope. Codes: `invalid_request` 400 (413 for a body over 64 KiB): a missing or malformed field, query
    parameter or body; `unauthorized` 401: missing, malformed, unknown or revoked key; `signature_required` 401: the
    agent's policy requires signed requests and this one carries no `web-bot-auth` signature; `signature_invalid` 401:
    the request signature is malformed, does not cover what it must, or does not verify (`param` `Content-Digest` when
    the body does not match its digest); `signature_key_unknown` 401: no `web-bot-auth` signature names an active key of
    the request's agent; `signature_expired` 401: the request signature expired (its `expires` more than 30 s ago);
    `signature_replayed` 401: this signature (key and nonce) was already used; `forbidden` 403: the key's role or the
    account's plan does not allow it; `agent_frozen` 403: authorize for a frozen agent; `agent_deactivated` 403:
    authorize for a deactivated agent; `not_found` 404: unknown route or id (including another account’s or mode’s);
    `conflict` 409: state conflict, or an Idempotency-Key reused with another request; `rate_limited` 429: over the
    plan's per-minute limit; `service_unavailable` 503: a dependency the call needs is down; `internal_error` 500: a
    bug; the message is generic.

        Attributes:
            error (ErrorError):
    """

    error: ErrorError

    def to_dict(self) -> dict[str, Any]:
        error = self.error.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_error import ErrorError

        d = dict(src_dict)
        error = ErrorError.from_dict(d.pop("error"))

        error = cls(
            error=error,
        )

        return error
