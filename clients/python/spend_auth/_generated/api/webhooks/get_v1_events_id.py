from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.event_type_0 import EventType0
from ...models.event_type_1 import EventType1
from ...models.event_type_2 import EventType2
from ...models.event_type_3 import EventType3
from ...models.event_type_4 import EventType4
from ...models.event_type_5 import EventType5
from ...models.event_type_6 import EventType6
from ...models.event_type_7 import EventType7
from ...models.event_type_8 import EventType8
from ...models.event_type_9 import EventType9
from ...models.event_type_10 import EventType10
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Error
    | EventType0
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
    if response.status_code == 200:

        def _parse_response_200(
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

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    response_default = Error.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Error
    | EventType0
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
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    Error
    | EventType0
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
]:
    """Retrieve an event

     Roles: admin, reviewer.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | EventType0 | EventType1 | EventType10 | EventType2 | EventType3 | EventType4 | EventType5 | EventType6 | EventType7 | EventType8 | EventType9]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    Error
    | EventType0
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
    | None
):
    """Retrieve an event

     Roles: admin, reviewer.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | EventType0 | EventType1 | EventType10 | EventType2 | EventType3 | EventType4 | EventType5 | EventType6 | EventType7 | EventType8 | EventType9
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    Error
    | EventType0
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
]:
    """Retrieve an event

     Roles: admin, reviewer.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | EventType0 | EventType1 | EventType10 | EventType2 | EventType3 | EventType4 | EventType5 | EventType6 | EventType7 | EventType8 | EventType9]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    Error
    | EventType0
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
    | None
):
    """Retrieve an event

     Roles: admin, reviewer.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | EventType0 | EventType1 | EventType10 | EventType2 | EventType3 | EventType4 | EventType5 | EventType6 | EventType7 | EventType8 | EventType9
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
