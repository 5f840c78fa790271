from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.patch_v1_webhook_endpoints_id_body_events_item import (
    PatchV1WebhookEndpointsIdBodyEventsItem,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchV1WebhookEndpointsIdBody")


@_attrs_define
class PatchV1WebhookEndpointsIdBody:
    """
    Attributes:
        url (str | Unset): An absolute https URL (http only in test mode) whose host resolves to public addresses; no
            credentials
        events (list[PatchV1WebhookEndpointsIdBodyEventsItem] | Unset):
        enabled (bool | Unset):
        description (None | str | Unset):
    """

    url: str | Unset = UNSET
    events: list[PatchV1WebhookEndpointsIdBodyEventsItem] | Unset = UNSET
    enabled: bool | Unset = UNSET
    description: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        enabled = self.enabled

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if url is not UNSET:
            field_dict["url"] = url
        if events is not UNSET:
            field_dict["events"] = events
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        _events = d.pop("events", UNSET)
        events: list[PatchV1WebhookEndpointsIdBodyEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = PatchV1WebhookEndpointsIdBodyEventsItem(events_item_data)

                events.append(events_item)

        enabled = d.pop("enabled", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        patch_v1_webhook_endpoints_id_body = cls(
            url=url,
            events=events,
            enabled=enabled,
            description=description,
        )

        return patch_v1_webhook_endpoints_id_body
