from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.patch_v1_decisions_id_capture_body_metadata import (
        PatchV1DecisionsIdCaptureBodyMetadata,
    )


T = TypeVar("T", bound="PatchV1DecisionsIdCaptureBody")


@_attrs_define
class PatchV1DecisionsIdCaptureBody:
    """
    Attributes:
        metadata (PatchV1DecisionsIdCaptureBodyMetadata):
    """

    metadata: PatchV1DecisionsIdCaptureBodyMetadata

    def to_dict(self) -> dict[str, Any]:
        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.patch_v1_decisions_id_capture_body_metadata import (
            PatchV1DecisionsIdCaptureBodyMetadata,
        )

        d = dict(src_dict)
        metadata = PatchV1DecisionsIdCaptureBodyMetadata.from_dict(d.pop("metadata"))

        patch_v1_decisions_id_capture_body = cls(
            metadata=metadata,
        )

        return patch_v1_decisions_id_capture_body
