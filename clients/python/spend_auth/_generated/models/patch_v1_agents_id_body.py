from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.patch_v1_agents_id_body_kyc_status import PatchV1AgentsIdBodyKycStatus
from ..models.patch_v1_agents_id_body_status import PatchV1AgentsIdBodyStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.patch_v1_agents_id_body_metadata import PatchV1AgentsIdBodyMetadata


T = TypeVar("T", bound="PatchV1AgentsIdBody")


@_attrs_define
class PatchV1AgentsIdBody:
    """
    Attributes:
        name (str | Unset):
        policy_id (str | Unset):
        metadata (PatchV1AgentsIdBodyMetadata | Unset):
        kyc_status (PatchV1AgentsIdBodyKycStatus | Unset):
        status (PatchV1AgentsIdBodyStatus | Unset):
    """

    name: str | Unset = UNSET
    policy_id: str | Unset = UNSET
    metadata: PatchV1AgentsIdBodyMetadata | Unset = UNSET
    kyc_status: PatchV1AgentsIdBodyKycStatus | Unset = UNSET
    status: PatchV1AgentsIdBodyStatus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        policy_id = self.policy_id

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        kyc_status: str | Unset = UNSET
        if not isinstance(self.kyc_status, Unset):
            kyc_status = self.kyc_status.value

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if policy_id is not UNSET:
            field_dict["policy_id"] = policy_id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if kyc_status is not UNSET:
            field_dict["kyc_status"] = kyc_status
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.patch_v1_agents_id_body_metadata import (
            PatchV1AgentsIdBodyMetadata,
        )

        d = dict(src_dict)
        name = d.pop("name", UNSET)

        policy_id = d.pop("policy_id", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: PatchV1AgentsIdBodyMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = PatchV1AgentsIdBodyMetadata.from_dict(_metadata)

        _kyc_status = d.pop("kyc_status", UNSET)
        kyc_status: PatchV1AgentsIdBodyKycStatus | Unset
        if isinstance(_kyc_status, Unset):
            kyc_status = UNSET
        else:
            kyc_status = PatchV1AgentsIdBodyKycStatus(_kyc_status)

        _status = d.pop("status", UNSET)
        status: PatchV1AgentsIdBodyStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = PatchV1AgentsIdBodyStatus(_status)

        patch_v1_agents_id_body = cls(
            name=name,
            policy_id=policy_id,
            metadata=metadata,
            kyc_status=kyc_status,
            status=status,
        )

        return patch_v1_agents_id_body
