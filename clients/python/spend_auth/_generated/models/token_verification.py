from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.token_verification_error_type_0 import TokenVerificationErrorType0

if TYPE_CHECKING:
    from ..models.token_claims import TokenClaims


T = TypeVar("T", bound="TokenVerification")


@_attrs_define
class TokenVerification:
    """The answer of POST /v1/authorization-tokens/verify.

    Attributes:
        valid (bool):
        claims (None | TokenClaims): The claims when valid; null otherwise
        error (None | TokenVerificationErrorType0): Why it is not valid (null when valid); `wrong_audience`: another
            account or mode, `agent_inactive`: the agent is frozen or deactivated; `consumed`: used once already, or
            captured; `voided`; `expired`: the token, or an approval not captured in time
    """

    valid: bool
    claims: None | TokenClaims
    error: None | TokenVerificationErrorType0

    def to_dict(self) -> dict[str, Any]:
        from ..models.token_claims import TokenClaims

        valid = self.valid

        claims: dict[str, Any] | None
        if isinstance(self.claims, TokenClaims):
            claims = self.claims.to_dict()
        else:
            claims = self.claims

        error: None | str
        if isinstance(self.error, TokenVerificationErrorType0):
            error = self.error.value
        else:
            error = self.error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "valid": valid,
                "claims": claims,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.token_claims import TokenClaims

        d = dict(src_dict)
        valid = d.pop("valid")

        def _parse_claims(data: object) -> None | TokenClaims:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                claims_type_0 = TokenClaims.from_dict(data)

                return claims_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TokenClaims, data)

        claims = _parse_claims(d.pop("claims"))

        def _parse_error(data: object) -> None | TokenVerificationErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                error_type_0 = TokenVerificationErrorType0(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TokenVerificationErrorType0, data)

        error = _parse_error(d.pop("error"))

        token_verification = cls(
            valid=valid,
            claims=claims,
            error=error,
        )

        return token_verification
