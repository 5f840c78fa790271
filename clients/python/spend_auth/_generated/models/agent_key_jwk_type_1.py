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

T = TypeVar("T", bound="AgentKeyJwkType1")


@_attrs_define
class AgentKeyJwkType1:
    """
    Attributes:
        kty (Literal['EC']):
        crv (Literal['P-256']):
        x (str):
        y (str):
    """

    kty: Literal["EC"]
    crv: Literal["P-256"]
    x: str
    y: str

    def to_dict(self) -> dict[str, Any]:
        kty = self.kty

        crv = self.crv

        x = self.x

        y = self.y

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kty": kty,
                "crv": crv,
                "x": x,
                "y": y,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kty = cast(Literal["EC"], d.pop("kty"))
        if kty != "EC":
            raise ValueError(f"kty must match const 'EC', got '{kty}'")

        crv = cast(Literal["P-256"], d.pop("crv"))
        if crv != "P-256":
            raise ValueError(f"crv must match const 'P-256', got '{crv}'")

        x = d.pop("x")

        y = d.pop("y")

        agent_key_jwk_type_1 = cls(
            kty=kty,
            crv=crv,
            x=x,
            y=y,
        )

        return agent_key_jwk_type_1
