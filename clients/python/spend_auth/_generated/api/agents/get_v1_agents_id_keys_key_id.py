from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.agent_key import AgentKey
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    key_id: str,
    *,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(signature_input, Unset):
        headers["Signature-Input"] = signature_input

    if not isinstance(signature, Unset):
        headers["Signature"] = signature

    if not isinstance(signature_agent, Unset):
        headers["Signature-Agent"] = signature_agent

    if not isinstance(content_digest, Unset):
        headers["Content-Digest"] = content_digest

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/agents/{id}/keys/{key_id}".format(
            id=quote(str(id), safe=""),
            key_id=quote(str(key_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AgentKey | Error:
    if response.status_code == 200:
        response_200 = AgentKey.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

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
) -> Response[AgentKey | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    key_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[AgentKey | Error]:
    """Retrieve an agent's signing key (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        key_id (str):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKey | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        key_id=key_id,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    key_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> AgentKey | Error | None:
    """Retrieve an agent's signing key (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        key_id (str):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKey | Error
    """

    return sync_detailed(
        id=id,
        key_id=key_id,
        client=client,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    ).parsed


async def asyncio_detailed(
    id: str,
    key_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[AgentKey | Error]:
    """Retrieve an agent's signing key (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        key_id (str):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKey | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        key_id=key_id,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    key_id: str,
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> AgentKey | Error | None:
    """Retrieve an agent's signing key (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        key_id (str):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKey | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            key_id=key_id,
            client=client,
            signature_input=signature_input,
            signature=signature,
            signature_agent=signature_agent,
            content_digest=content_digest,
        )
    ).parsed
