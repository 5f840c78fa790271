from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AuditCheckpointWebhookData")


@_attrs_define
class AuditCheckpointWebhookData:
    """The `data` of `audit.checkpoint`: the day's signed checkpoint of this account and mode's audit chain.

    Attributes:
        checkpoint (str): The signed checkpoint, as `GET /v1/audit-logs/verify` returns it: keep it, and pass it back as
            `?checkpoint=`
        sequence (int): The sequence of the chain head it names
        head_hash (str): That record's hash
        day (datetime.date): The day (UTC) the checkpoint was sent for
    """

    checkpoint: str
    sequence: int
    head_hash: str
    day: datetime.date

    def to_dict(self) -> dict[str, Any]:
        checkpoint = self.checkpoint

        sequence = self.sequence

        head_hash = self.head_hash

        day = self.day.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "checkpoint": checkpoint,
                "sequence": sequence,
                "head_hash": head_hash,
                "day": day,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        checkpoint = d.pop("checkpoint")

        sequence = d.pop("sequence")

        head_hash = d.pop("head_hash")

        day = datetime.date.fromisoformat(d.pop("day"))

        audit_checkpoint_webhook_data = cls(
            checkpoint=checkpoint,
            sequence=sequence,
            head_hash=head_hash,
            day=day,
        )

        return audit_checkpoint_webhook_data
