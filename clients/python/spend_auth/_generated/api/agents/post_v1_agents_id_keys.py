from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.agent_key import AgentKey
from ...models.error import Error
from ...models.post_v1_agents_id_keys_body import PostV1AgentsIdKeysBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: PostV1AgentsIdKeysBody,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/agents/{id}/keys".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AgentKey | Error:
    if response.status_code == 201:
        response_201 = AgentKey.from_dict(response.json())

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

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

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
) -> Response[AgentKey | Error]:
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
    body: PostV1AgentsIdKeysBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[AgentKey | Error]:
    """Register an agent's public signing key (RFC 9421, Web Bot Auth)

     The key (Ed25519 or P-256 JWK) then verifies the `web-bot-auth` signatures of requests made with the
    agent's credentials. With `directory_url`, the origin's key directory is fetched now and must list
    the key; the key then verifies only signatures whose `Signature-Agent` is that origin, while the
    directory lists it. 409: a deactivated agent, 10 active keys already, or the thumbprint active on an
    agent of this account and mode.

    Roles: admin.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (PostV1AgentsIdKeysBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKey | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1AgentsIdKeysBody,
    idempotency_key: str | Unset = UNSET,
) -> AgentKey | Error | None:
    """Register an agent's public signing key (RFC 9421, Web Bot Auth)

     The key (Ed25519 or P-256 JWK) then verifies the `web-bot-auth` signatures of requests made with the
    agent's credentials. With `directory_url`, the origin's key directory is fetched now and must list
    the key; the key then verifies only signatures whose `Signature-Agent` is that origin, while the
    directory lists it. 409: a deactivated agent, 10 active keys already, or the thumbprint active on an
    agent of this account and mode.

    Roles: admin.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (PostV1AgentsIdKeysBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKey | Error
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1AgentsIdKeysBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[AgentKey | Error]:
    """Register an agent's public signing key (RFC 9421, Web Bot Auth)

     The key (Ed25519 or P-256 JWK) then verifies the `web-bot-auth` signatures of requests made with the
    agent's credentials. With `directory_url`, the origin's key directory is fetched now and must list
    the key; the key then verifies only signatures whose `Signature-Agent` is that origin, while the
    directory lists it. 409: a deactivated agent, 10 active keys already, or the thumbprint active on an
    agent of this account and mode.

    Roles: admin.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (PostV1AgentsIdKeysBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKey | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1AgentsIdKeysBody,
    idempotency_key: str | Unset = UNSET,
) -> AgentKey | Error | None:
    """Register an agent's public signing key (RFC 9421, Web Bot Auth)

     The key (Ed25519 or P-256 JWK) then verifies the `web-bot-auth` signatures of requests made with the
    agent's credentials. With `directory_url`, the origin's key directory is fetched now and must list
    the key; the key then verifies only signatures whose `Signature-Agent` is that origin, while the
    directory lists it. 409: a deactivated agent, 10 active keys already, or the thumbprint active on an
    agent of this account and mode.

    Roles: admin.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (PostV1AgentsIdKeysBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKey | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
