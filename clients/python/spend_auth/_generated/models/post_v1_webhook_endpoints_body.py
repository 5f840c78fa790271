from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_webhook_endpoints_body_events_item import (
    PostV1WebhookEndpointsBodyEventsItem,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1WebhookEndpointsBody")


@_attrs_define
class PostV1WebhookEndpointsBody:
    """
    Attributes:
        url (str): An absolute https URL (http only in test mode) whose host resolves to public addresses; no
            credentials
        events (list[PostV1WebhookEndpointsBodyEventsItem]):
        description (str | Unset):
    """

    url: str
    events: list[PostV1WebhookEndpointsBodyEventsItem]
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
                "events": events,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = PostV1WebhookEndpointsBodyEventsItem(events_item_data)

            events.append(events_item)

        description = d.pop("description", UNSET)

        post_v1_webhook_endpoints_body = cls(
            url=url,
            events=events,
            description=description,
        )

        return post_v1_webhook_endpoints_body
