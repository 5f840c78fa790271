from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.mandate_open_mandate_cnf import MandateOpenMandateCnf
    from ..models.mandate_open_mandate_constraints_item import (
        MandateOpenMandateConstraintsItem,
    )


T = TypeVar("T", bound="MandateOpenMandate")


@_attrs_define
class MandateOpenMandate:
    """The open Payment Mandate the credential discloses, resolved (no digests)

    Attributes:
        vct (Literal['mandate.payment.open.1']):
        constraints (list[MandateOpenMandateConstraintsItem]): In the order the verifier checks them:
            `payment.amount_range` first, `payment.reference` last
        cnf (MandateOpenMandateCnf): The agent key that must sign the closed mandate
        iat (int): Issued at (seconds since the epoch)
        exp (int): Expires at (seconds since the epoch)
    """

    vct: Literal["mandate.payment.open.1"]
    constraints: list[MandateOpenMandateConstraintsItem]
    cnf: MandateOpenMandateCnf
    iat: int
    exp: int

    def to_dict(self) -> dict[str, Any]:
        vct = self.vct

        constraints = []
        for constraints_item_data in self.constraints:
            constraints_item = constraints_item_data.to_dict()
            constraints.append(constraints_item)

        cnf = self.cnf.to_dict()

        iat = self.iat

        exp = self.exp

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "vct": vct,
                "constraints": constraints,
                "cnf": cnf,
                "iat": iat,
                "exp": exp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mandate_open_mandate_cnf import MandateOpenMandateCnf
        from ..models.mandate_open_mandate_constraints_item import (
            MandateOpenMandateConstraintsItem,
        )

        d = dict(src_dict)
        vct = cast(Literal["mandate.payment.open.1"], d.pop("vct"))
        if vct != "mandate.payment.open.1":
            raise ValueError(
                f"vct must match const 'mandate.payment.open.1', got '{vct}'"
            )

        constraints = []
        _constraints = d.pop("constraints")
        for constraints_item_data in _constraints:
            constraints_item = MandateOpenMandateConstraintsItem.from_dict(
                constraints_item_data
            )

            constraints.append(constraints_item)

        cnf = MandateOpenMandateCnf.from_dict(d.pop("cnf"))

        iat = d.pop("iat")

        exp = d.pop("exp")

        mandate_open_mandate = cls(
            vct=vct,
            constraints=constraints,
            cnf=cnf,
            iat=iat,
            exp=exp,
        )

        return mandate_open_mandate
