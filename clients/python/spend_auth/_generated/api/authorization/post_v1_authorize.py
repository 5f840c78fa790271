from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.decision import Decision
from ...models.error import Error
from ...models.post_v1_authorize_body import PostV1AuthorizeBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostV1AuthorizeBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(signature_input, Unset):
        headers["Signature-Input"] = signature_input

    if not isinstance(signature, Unset):
        headers["Signature"] = signature

    if not isinstance(signature_agent, Unset):
        headers["Signature-Agent"] = signature_agent

    if not isinstance(content_digest, Unset):
        headers["Content-Digest"] = content_digest

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/authorize",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Decision | Error:
    if response.status_code == 200:
        response_200 = Decision.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    response_default = Error.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Decision | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1AuthorizeBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[Decision | Error]:
    """Request a spend decision: approved (with a gca_ token), denied or held

     Every completed check answers 200, including denied and held. Agent keys authorize only their own
    agent.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1AuthorizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
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
    body: PostV1AuthorizeBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Decision | Error | None:
    """Request a spend decision: approved (with a gca_ token), denied or held

     Every completed check answers 200, including denied and held. Agent keys authorize only their own
    agent.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1AuthorizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | Error
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        signature_input=signature_input,
        signature=signature,
        signature_agent=signature_agent,
        content_digest=content_digest,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1AuthorizeBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[Decision | Error]:
    """Request a spend decision: approved (with a gca_ token), denied or held

     Every completed check answers 200, including denied and held. Agent keys authorize only their own
    agent.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1AuthorizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
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
    body: PostV1AuthorizeBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Decision | Error | None:
    """Request a spend decision: approved (with a gca_ token), denied or held

     Every completed check answers 200, including denied and held. Agent keys authorize only their own
    agent.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1AuthorizeBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            signature_input=signature_input,
            signature=signature,
            signature_agent=signature_agent,
            content_digest=content_digest,
        )
    ).parsed
