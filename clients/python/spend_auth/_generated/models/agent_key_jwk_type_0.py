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

T = TypeVar("T", bound="AgentKeyJwkType0")


@_attrs_define
class AgentKeyJwkType0:
    """
    Attributes:
        kty (Literal['OKP']):
        crv (Literal['Ed25519']):
        x (str):
    """

    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str

    def to_dict(self) -> dict[str, Any]:
        kty = self.kty

        crv = self.crv

        x = self.x

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kty": kty,
                "crv": crv,
                "x": x,
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

        agent_key_jwk_type_0 = cls(
            kty=kty,
            crv=crv,
            x=x,
        )

        return agent_key_jwk_type_0
