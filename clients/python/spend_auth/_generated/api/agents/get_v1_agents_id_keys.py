from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.agent_key_list import AgentKeyList
from ...models.error import Error
from ...models.get_v1_agents_id_keys_status import GetV1AgentsIdKeysStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
    status: GetV1AgentsIdKeysStatus | Unset = UNSET,
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

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["cursor"] = cursor

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/agents/{id}/keys".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AgentKeyList | Error:
    if response.status_code == 200:
        response_200 = AgentKeyList.from_dict(response.json())

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
) -> Response[AgentKeyList | Error]:
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
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
    status: GetV1AgentsIdKeysStatus | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[AgentKeyList | Error]:
    """List an agent's signing keys (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)
        status (GetV1AgentsIdKeysStatus | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKeyList | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
        cursor=cursor,
        status=status,
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
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
    status: GetV1AgentsIdKeysStatus | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> AgentKeyList | Error | None:
    """List an agent's signing keys (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)
        status (GetV1AgentsIdKeysStatus | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKeyList | Error
    """

    return sync_detailed(
        id=id,
        client=client,
        limit=limit,
        cursor=cursor,
        status=status,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
    status: GetV1AgentsIdKeysStatus | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[AgentKeyList | Error]:
    """List an agent's signing keys (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)
        status (GetV1AgentsIdKeysStatus | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentKeyList | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
        cursor=cursor,
        status=status,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    cursor: str | Unset = UNSET,
    status: GetV1AgentsIdKeysStatus | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> AgentKeyList | Error | None:
    """List an agent's signing keys (agent keys: their own agent only)

     Roles: admin, reviewer, agent.

    Args:
        id (str):
        limit (int | Unset):  Default: 20.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)
        status (GetV1AgentsIdKeysStatus | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentKeyList | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            limit=limit,
            cursor=cursor,
            status=status,
            signature_input=signature_input,
            signature=signature,
            signature_agent=signature_agent,
            content_digest=content_digest,
        )
    ).parsed
