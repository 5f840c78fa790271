from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_decisions_id_capture_body_metadata import (
        PostV1DecisionsIdCaptureBodyMetadata,
    )


T = TypeVar("T", bound="PostV1DecisionsIdCaptureBody")


@_attrs_define
class PostV1DecisionsIdCaptureBody:
    """
    Attributes:
        amount (int | Unset):
        metadata (PostV1DecisionsIdCaptureBodyMetadata | Unset):
    """

    amount: int | Unset = UNSET
    metadata: PostV1DecisionsIdCaptureBodyMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if amount is not UNSET:
            field_dict["amount"] = amount
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_decisions_id_capture_body_metadata import (
            PostV1DecisionsIdCaptureBodyMetadata,
        )

        d = dict(src_dict)
        amount = d.pop("amount", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: PostV1DecisionsIdCaptureBodyMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = PostV1DecisionsIdCaptureBodyMetadata.from_dict(_metadata)

        post_v1_decisions_id_capture_body = cls(
            amount=amount,
            metadata=metadata,
        )

        return post_v1_decisions_id_capture_body
