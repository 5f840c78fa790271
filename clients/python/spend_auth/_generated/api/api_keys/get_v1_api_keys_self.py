from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.api_key import ApiKey
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
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
        "url": "/v1/api-keys/self",
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiKey | Error:
    if response.status_code == 200:
        response_200 = ApiKey.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    response_default = Error.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiKey | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[ApiKey | Error]:
    """The calling key itself (mode, role, agent)

     Roles: admin, reviewer, agent.

    Args:
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiKey | Error]
    """

    kwargs = _get_kwargs(
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
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> ApiKey | Error | None:
    """The calling key itself (mode, role, agent)

     Roles: admin, reviewer, agent.

    Args:
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiKey | Error
    """

    return sync_detailed(
        client=client,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[ApiKey | Error]:
    """The calling key itself (mode, role, agent)

     Roles: admin, reviewer, agent.

    Args:
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiKey | Error]
    """

    kwargs = _get_kwargs(
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> ApiKey | Error | None:
    """The calling key itself (mode, role, agent)

     Roles: admin, reviewer, agent.

    Args:
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiKey | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            signature_input=signature_input,
            signature=signature,
            signature_agent=signature_agent,
            content_digest=content_digest,
        )
    ).parsed
