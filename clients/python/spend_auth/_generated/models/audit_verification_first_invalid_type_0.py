from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AuditVerificationFirstInvalidType0")


@_attrs_define
class AuditVerificationFirstInvalidType0:
    """
    Attributes:
        id (str): Record id
        sequence (int):
    """

    id: str
    sequence: int

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        sequence = self.sequence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "sequence": sequence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        sequence = d.pop("sequence")

        audit_verification_first_invalid_type_0 = cls(
            id=id,
            sequence=sequence,
        )

        return audit_verification_first_invalid_type_0
