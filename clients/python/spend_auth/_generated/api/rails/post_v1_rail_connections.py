from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.post_v1_rail_connections_body import PostV1RailConnectionsBody
from ...models.rail_connection import RailConnection
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostV1RailConnectionsBody,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/rail-connections",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RailConnection:
    if response.status_code == 201:
        response_201 = RailConnection.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    response_default = Error.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | RailConnection]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1RailConnectionsBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RailConnection]:
    """Connect a rail that asks first (Stripe Issuing real-time authorizations); the signing secret is
    write-only

     Answers the connection with its `endpoint_url`: give it to Stripe as the real-time authorization
    webhook and the endpoint of the issuing events. See docs/rails/stripe-issuing.md.

    Roles: admin.

    Args:
        idempotency_key (str | Unset):
        body (PostV1RailConnectionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RailConnection]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1RailConnectionsBody,
    idempotency_key: str | Unset = UNSET,
) -> Error | RailConnection | None:
    """Connect a rail that asks first (Stripe Issuing real-time authorizations); the signing secret is
    write-only

     Answers the connection with its `endpoint_url`: give it to Stripe as the real-time authorization
    webhook and the endpoint of the issuing events. See docs/rails/stripe-issuing.md.

    Roles: admin.

    Args:
        idempotency_key (str | Unset):
        body (PostV1RailConnectionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RailConnection
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1RailConnectionsBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RailConnection]:
    """Connect a rail that asks first (Stripe Issuing real-time authorizations); the signing secret is
    write-only

     Answers the connection with its `endpoint_url`: give it to Stripe as the real-time authorization
    webhook and the endpoint of the issuing events. See docs/rails/stripe-issuing.md.

    Roles: admin.

    Args:
        idempotency_key (str | Unset):
        body (PostV1RailConnectionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RailConnection]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1RailConnectionsBody,
    idempotency_key: str | Unset = UNSET,
) -> Error | RailConnection | None:
    """Connect a rail that asks first (Stripe Issuing real-time authorizations); the signing secret is
    write-only

     Answers the connection with its `endpoint_url`: give it to Stripe as the real-time authorization
    webhook and the endpoint of the issuing events. See docs/rails/stripe-issuing.md.

    Roles: admin.

    Args:
        idempotency_key (str | Unset):
        body (PostV1RailConnectionsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RailConnection
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
