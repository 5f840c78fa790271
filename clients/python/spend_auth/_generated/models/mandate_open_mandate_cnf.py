from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.mandate_open_mandate_cnf_jwk import MandateOpenMandateCnfJwk


T = TypeVar("T", bound="MandateOpenMandateCnf")


@_attrs_define
class MandateOpenMandateCnf:
    """The agent key that must sign the closed mandate

    Attributes:
        jwk (MandateOpenMandateCnfJwk):
    """

    jwk: MandateOpenMandateCnfJwk

    def to_dict(self) -> dict[str, Any]:
        jwk = self.jwk.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "jwk": jwk,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mandate_open_mandate_cnf_jwk import MandateOpenMandateCnfJwk

        d = dict(src_dict)
        jwk = MandateOpenMandateCnfJwk.from_dict(d.pop("jwk"))

        mandate_open_mandate_cnf = cls(
            jwk=jwk,
        )

        return mandate_open_mandate_cnf
