from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.audit_record_actor_type import AuditRecordActorType

T = TypeVar("T", bound="AuditRecordActor")


@_attrs_define
class AuditRecordActor:
    """Who did it

    Attributes:
        type_ (AuditRecordActorType): `operator`: a signal sent from the Temporal UI or CLI
        id (None | str): The API key id, the operator's name, or null for the system
    """

    type_: AuditRecordActorType
    id: None | str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id: None | str
        id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = AuditRecordActorType(d.pop("type"))

        def _parse_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id = _parse_id(d.pop("id"))

        audit_record_actor = cls(
            type_=type_,
            id=id,
        )

        return audit_record_actor
