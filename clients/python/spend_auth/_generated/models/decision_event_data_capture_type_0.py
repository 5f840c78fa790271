from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.decision_event_data_capture_type_0_status import (
    DecisionEventDataCaptureType0Status,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decision_event_data_capture_type_0_metadata_type_0 import (
        DecisionEventDataCaptureType0MetadataType0,
    )
    from ..models.decision_event_data_capture_type_0_signature_type_0 import (
        DecisionEventDataCaptureType0SignatureType0,
    )


T = TypeVar("T", bound="DecisionEventDataCaptureType0")


@_attrs_define
class DecisionEventDataCaptureType0:
    """What the rail did with an approval.

    Attributes:
        status (DecisionEventDataCaptureType0Status): `uncaptured` until the rail captures it; `expired` when not
            captured in time
        captured_amount (int | None):
        captured_at (datetime.datetime | None):
        capture_before (datetime.datetime | None):
        metadata (DecisionEventDataCaptureType0MetadataType0 | None): What the rail sent with its capture (its own
            reference, e.g. an x402 settlement's transaction); null until captured
        signature (DecisionEventDataCaptureType0SignatureType0 | None): The signature the capture request was made
            under; null when unsigned, not captured yet, or captured by a rail
        over_capture_amount (int | Unset): Only when a rail that asks first captured more than was approved for its card
            authorization: by how much (minor units); `captured_amount` includes it
    """

    status: DecisionEventDataCaptureType0Status
    captured_amount: int | None
    captured_at: datetime.datetime | None
    capture_before: datetime.datetime | None
    metadata: DecisionEventDataCaptureType0MetadataType0 | None
    signature: DecisionEventDataCaptureType0SignatureType0 | None
    over_capture_amount: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.decision_event_data_capture_type_0_metadata_type_0 import (
            DecisionEventDataCaptureType0MetadataType0,
        )
        from ..models.decision_event_data_capture_type_0_signature_type_0 import (
            DecisionEventDataCaptureType0SignatureType0,
        )

        status = self.status.value

        captured_amount: int | None
        captured_amount = self.captured_amount

        captured_at: None | str
        if isinstance(self.captured_at, datetime.datetime):
            captured_at = self.captured_at.isoformat()
        else:
            captured_at = self.captured_at

        capture_before: None | str
        if isinstance(self.capture_before, datetime.datetime):
            capture_before = self.capture_before.isoformat()
        else:
            capture_before = self.capture_before

        metadata: dict[str, Any] | None
        if isinstance(self.metadata, DecisionEventDataCaptureType0MetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        signature: dict[str, Any] | None
        if isinstance(self.signature, DecisionEventDataCaptureType0SignatureType0):
            signature = self.signature.to_dict()
        else:
            signature = self.signature

        over_capture_amount = self.over_capture_amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "captured_amount": captured_amount,
                "captured_at": captured_at,
                "capture_before": capture_before,
                "metadata": metadata,
                "signature": signature,
            }
        )
        if over_capture_amount is not UNSET:
            field_dict["over_capture_amount"] = over_capture_amount

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.decision_event_data_capture_type_0_metadata_type_0 import (
            DecisionEventDataCaptureType0MetadataType0,
        )
        from ..models.decision_event_data_capture_type_0_signature_type_0 import (
            DecisionEventDataCaptureType0SignatureType0,
        )

        d = dict(src_dict)
        status = DecisionEventDataCaptureType0Status(d.pop("status"))

        def _parse_captured_amount(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        captured_amount = _parse_captured_amount(d.pop("captured_amount"))

        def _parse_captured_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                captured_at_type_0 = datetime.datetime.fromisoformat(data)

                return captured_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        captured_at = _parse_captured_at(d.pop("captured_at"))

        def _parse_capture_before(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                capture_before_type_0 = datetime.datetime.fromisoformat(data)

                return capture_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        capture_before = _parse_capture_before(d.pop("capture_before"))

        def _parse_metadata(
            data: object,
        ) -> DecisionEventDataCaptureType0MetadataType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = DecisionEventDataCaptureType0MetadataType0.from_dict(
                    data
                )

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataCaptureType0MetadataType0 | None, data)

        metadata = _parse_metadata(d.pop("metadata"))

        def _parse_signature(
            data: object,
        ) -> DecisionEventDataCaptureType0SignatureType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                signature_type_0 = (
                    DecisionEventDataCaptureType0SignatureType0.from_dict(data)
                )

                return signature_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataCaptureType0SignatureType0 | None, data)

        signature = _parse_signature(d.pop("signature"))

        over_capture_amount = d.pop("over_capture_amount", UNSET)

        decision_event_data_capture_type_0 = cls(
            status=status,
            captured_amount=captured_amount,
            captured_at=captured_at,
            capture_before=capture_before,
            metadata=metadata,
            signature=signature,
            over_capture_amount=over_capture_amount,
        )

        return decision_event_data_capture_type_0
