from __future__ import annotations

import datetime
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

from ..models.webhook_delivery_status import WebhookDeliveryStatus

if TYPE_CHECKING:
    from ..models.webhook_delivery_attempts_item import WebhookDeliveryAttemptsItem


T = TypeVar("T", bound="WebhookDelivery")


@_attrs_define
class WebhookDelivery:
    """The delivery of one event to one endpoint, with its attempts.

    Attributes:
        id (str): Delivery id
        object_ (Literal['webhook_delivery']):
        event_id (str): The delivered event
        endpoint_id (str): The receiving endpoint
        status (WebhookDeliveryStatus): `pending` while retrying (up to 3 days); `failed` once retries are exhausted
        attempt_count (int): Attempts so far
        last_status_code (int | None): The last attempt's HTTP status
        last_error (None | str): The last attempt's error
        created_at (datetime.datetime): Creation time
        completed_at (datetime.datetime | None):
        attempts (list[WebhookDeliveryAttemptsItem]): Its recent attempts (empty in the answer to redeliver)
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
    """

    id: str
    object_: Literal["webhook_delivery"]
    event_id: str
    endpoint_id: str
    status: WebhookDeliveryStatus
    attempt_count: int
    last_status_code: int | None
    last_error: None | str
    created_at: datetime.datetime
    completed_at: datetime.datetime | None
    attempts: list[WebhookDeliveryAttemptsItem]
    livemode: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        event_id = self.event_id

        endpoint_id = self.endpoint_id

        status = self.status.value

        attempt_count = self.attempt_count

        last_status_code: int | None
        last_status_code = self.last_status_code

        last_error: None | str
        last_error = self.last_error

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        livemode = self.livemode

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "event_id": event_id,
                "endpoint_id": endpoint_id,
                "status": status,
                "attempt_count": attempt_count,
                "last_status_code": last_status_code,
                "last_error": last_error,
                "created_at": created_at,
                "completed_at": completed_at,
                "attempts": attempts,
                "livemode": livemode,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_delivery_attempts_item import WebhookDeliveryAttemptsItem

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["webhook_delivery"], d.pop("object"))
        if object_ != "webhook_delivery":
            raise ValueError(
                f"object must match const 'webhook_delivery', got '{object_}'"
            )

        event_id = d.pop("event_id")

        endpoint_id = d.pop("endpoint_id")

        status = WebhookDeliveryStatus(d.pop("status"))

        attempt_count = d.pop("attempt_count")

        def _parse_last_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_status_code = _parse_last_status_code(d.pop("last_status_code"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = WebhookDeliveryAttemptsItem.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        livemode = d.pop("livemode")

        webhook_delivery = cls(
            id=id,
            object_=object_,
            event_id=event_id,
            endpoint_id=endpoint_id,
            status=status,
            attempt_count=attempt_count,
            last_status_code=last_status_code,
            last_error=last_error,
            created_at=created_at,
            completed_at=completed_at,
            attempts=attempts,
            livemode=livemode,
        )

        return webhook_delivery
