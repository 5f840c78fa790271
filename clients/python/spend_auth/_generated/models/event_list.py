from __future__ import annotations

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

if TYPE_CHECKING:
    from ..models.event_type_0 import EventType0
    from ..models.event_type_1 import EventType1
    from ..models.event_type_2 import EventType2
    from ..models.event_type_3 import EventType3
    from ..models.event_type_4 import EventType4
    from ..models.event_type_5 import EventType5
    from ..models.event_type_6 import EventType6
    from ..models.event_type_7 import EventType7
    from ..models.event_type_8 import EventType8
    from ..models.event_type_9 import EventType9
    from ..models.event_type_10 import EventType10


T = TypeVar("T", bound="EventList")


@_attrs_define
class EventList:
    """A page of events, newest first (keyset-paginated).

    Attributes:
        object_ (Literal['list']):
        data (list[EventType0 | EventType1 | EventType10 | EventType2 | EventType3 | EventType4 | EventType5 |
            EventType6 | EventType7 | EventType8 | EventType9]): Newest first
        has_more (bool): True when another page follows
        next_cursor (None | str): Pass as `cursor` for the next page; null on the last page
    """

    object_: Literal["list"]
    data: list[
        EventType0
        | EventType1
        | EventType10
        | EventType2
        | EventType3
        | EventType4
        | EventType5
        | EventType6
        | EventType7
        | EventType8
        | EventType9
    ]
    has_more: bool
    next_cursor: None | str

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_0 import EventType0
        from ..models.event_type_1 import EventType1
        from ..models.event_type_2 import EventType2
        from ..models.event_type_3 import EventType3
        from ..models.event_type_4 import EventType4
        from ..models.event_type_5 import EventType5
        from ..models.event_type_6 import EventType6
        from ..models.event_type_7 import EventType7
        from ..models.event_type_8 import EventType8
        from ..models.event_type_9 import EventType9

        object_ = self.object_

        data = []
        for data_item_data in self.data:
            data_item: dict[str, Any]
            if (
                isinstance(data_item_data, EventType0)
                or isinstance(data_item_data, EventType1)
                or isinstance(data_item_data, EventType2)
                or isinstance(data_item_data, EventType3)
                or isinstance(data_item_data, EventType4)
                or isinstance(data_item_data, EventType5)
                or isinstance(data_item_data, EventType6)
                or isinstance(data_item_data, EventType7)
                or isinstance(data_item_data, EventType8)
                or isinstance(data_item_data, EventType9)
            ):
                data_item = data_item_data.to_dict()
            else:
                data_item = data_item_data.to_dict()

            data.append(data_item)

        has_more = self.has_more

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "data": data,
                "has_more": has_more,
                "next_cursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event_type_0 import EventType0
        from ..models.event_type_1 import EventType1
        from ..models.event_type_2 import EventType2
        from ..models.event_type_3 import EventType3
        from ..models.event_type_4 import EventType4
        from ..models.event_type_5 import EventType5
        from ..models.event_type_6 import EventType6
        from ..models.event_type_7 import EventType7
        from ..models.event_type_8 import EventType8
        from ..models.event_type_9 import EventType9
        from ..models.event_type_10 import EventType10

        d = dict(src_dict)
        object_ = cast(Literal["list"], d.pop("object"))
        if object_ != "list":
            raise ValueError(f"object must match const 'list', got '{object_}'")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:

            def _parse_data_item(
                data: object,
            ) -> (
                EventType0
                | EventType1
                | EventType10
                | EventType2
                | EventType3
                | EventType4
                | EventType5
                | EventType6
                | EventType7
                | EventType8
                | EventType9
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_0 = EventType0.from_dict(data)

                    return componentsschemas_event_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_1 = EventType1.from_dict(data)

                    return componentsschemas_event_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_2 = EventType2.from_dict(data)

                    return componentsschemas_event_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_3 = EventType3.from_dict(data)

                    return componentsschemas_event_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_4 = EventType4.from_dict(data)

                    return componentsschemas_event_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_5 = EventType5.from_dict(data)

                    return componentsschemas_event_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_6 = EventType6.from_dict(data)

                    return componentsschemas_event_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_7 = EventType7.from_dict(data)

                    return componentsschemas_event_type_7
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_8 = EventType8.from_dict(data)

                    return componentsschemas_event_type_8
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_9 = EventType9.from_dict(data)

                    return componentsschemas_event_type_9
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_10 = EventType10.from_dict(data)

                return componentsschemas_event_type_10

            data_item = _parse_data_item(data_item_data)

            data.append(data_item)

        has_more = d.pop("has_more")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        event_list = cls(
            object_=object_,
            data=data,
            has_more=has_more,
            next_cursor=next_cursor,
        )

        return event_list
