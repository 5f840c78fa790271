from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.rail_answer_type_0_metadata import RailAnswerType0Metadata


T = TypeVar("T", bound="RailAnswerType0")


@_attrs_define
class RailAnswerType0:
    """The answer to `issuing_authorization.request`, as Stripe reads it.

    Attributes:
        approved (bool): Stripe approves the card authorization when true, declines it when false
        metadata (RailAnswerType0Metadata): Kept by Stripe on the authorization
    """

    approved: bool
    metadata: RailAnswerType0Metadata

    def to_dict(self) -> dict[str, Any]:
        approved = self.approved

        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approved": approved,
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rail_answer_type_0_metadata import RailAnswerType0Metadata

        d = dict(src_dict)
        approved = d.pop("approved")

        metadata = RailAnswerType0Metadata.from_dict(d.pop("metadata"))

        rail_answer_type_0 = cls(
            approved=approved,
            metadata=metadata,
        )

        return rail_answer_type_0
