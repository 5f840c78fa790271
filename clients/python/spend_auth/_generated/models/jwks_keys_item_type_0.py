from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="JWKSKeysItemType0")


@_attrs_define
class JWKSKeysItemType0:
    """An Ed25519 public key: verifies `gca_` tokens and audit checkpoints

    Attributes:
        kty (Literal['OKP']):
        crv (Literal['Ed25519']):
        x (str): The public key, base64url
        kid (str): Key id: the `kid` of the tokens and audit checkpoints it verifies
        alg (Literal['EdDSA']):
        use (Literal['sig']):
    """

    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str
    alg: Literal["EdDSA"]
    use: Literal["sig"]

    def to_dict(self) -> dict[str, Any]:
        kty = self.kty

        crv = self.crv

        x = self.x

        kid = self.kid

        alg = self.alg

        use = self.use

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kty": kty,
                "crv": crv,
                "x": x,
                "kid": kid,
                "alg": alg,
                "use": use,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kty = cast(Literal["OKP"], d.pop("kty"))
        if kty != "OKP":
            raise ValueError(f"kty must match const 'OKP', got '{kty}'")

        crv = cast(Literal["Ed25519"], d.pop("crv"))
        if crv != "Ed25519":
            raise ValueError(f"crv must match const 'Ed25519', got '{crv}'")

        x = d.pop("x")

        kid = d.pop("kid")

        alg = cast(Literal["EdDSA"], d.pop("alg"))
        if alg != "EdDSA":
            raise ValueError(f"alg must match const 'EdDSA', got '{alg}'")

        use = cast(Literal["sig"], d.pop("use"))
        if use != "sig":
            raise ValueError(f"use must match const 'sig', got '{use}'")

        jwks_keys_item_type_0 = cls(
            kty=kty,
            crv=crv,
            x=x,
            kid=kid,
            alg=alg,
            use=use,
        )

        return jwks_keys_item_type_0
