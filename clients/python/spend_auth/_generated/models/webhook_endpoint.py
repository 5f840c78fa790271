from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.webhook_endpoint_events_item import WebhookEndpointEventsItem

T = TypeVar("T", bound="WebhookEndpoint")


@_attrs_define
class WebhookEndpoint:
    """A webhook endpoint: a URL that receives signed event deliveries.

    Attributes:
        id (str): Endpoint id
        object_ (Literal['webhook_endpoint']):
        url (str): Where deliveries are POSTed (https in live mode)
        description (None | str): Free text
        events (list[WebhookEndpointEventsItem]): Subscribed event types, or `["*"]` for all
        enabled (bool): Disabled endpoints get no new deliveries
        previous_secret_expires_at (datetime.datetime | None): Until when the secret before the last rotation also signs
            deliveries (X-Service-Signature-Previous); null when it does not
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): Creation time
        updated_at (datetime.datetime): Last change
    """

    id: str
    object_: Literal["webhook_endpoint"]
    url: str
    description: None | str
    events: list[WebhookEndpointEventsItem]
    enabled: bool
    previous_secret_expires_at: datetime.datetime | None
    livemode: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        url = self.url

        description: None | str
        description = self.description

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        enabled = self.enabled

        previous_secret_expires_at: None | str
        if isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "url": url,
                "description": description,
                "events": events,
                "enabled": enabled,
                "previous_secret_expires_at": previous_secret_expires_at,
                "livemode": livemode,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["webhook_endpoint"], d.pop("object"))
        if object_ != "webhook_endpoint":
            raise ValueError(
                f"object must match const 'webhook_endpoint', got '{object_}'"
            )

        url = d.pop("url")

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = WebhookEndpointEventsItem(events_item_data)

            events.append(events_item)

        enabled = d.pop("enabled")

        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(
                    data
                )

                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(
            d.pop("previous_secret_expires_at")
        )

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        webhook_endpoint = cls(
            id=id,
            object_=object_,
            url=url,
            description=description,
            events=events,
            enabled=enabled,
            previous_secret_expires_at=previous_secret_expires_at,
            livemode=livemode,
            created_at=created_at,
            updated_at=updated_at,
        )

        return webhook_endpoint
