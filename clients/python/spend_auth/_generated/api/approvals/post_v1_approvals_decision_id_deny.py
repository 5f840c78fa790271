from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.decision import Decision
from ...models.error import Error
from ...models.post_v1_approvals_decision_id_deny_body import (
    PostV1ApprovalsDecisionIdDenyBody,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    decision_id: str,
    *,
    body: PostV1ApprovalsDecisionIdDenyBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/approvals/{decision_id}/deny".format(
            decision_id=quote(str(decision_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
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
    decision_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ApprovalsDecisionIdDenyBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Decision | Error]:
    """Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503
    if the engine is down)

     Roles: admin, reviewer.

    Args:
        decision_id (str):
        idempotency_key (str | Unset):
        body (PostV1ApprovalsDecisionIdDenyBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | Error]
    """

    kwargs = _get_kwargs(
        decision_id=decision_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    decision_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ApprovalsDecisionIdDenyBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Decision | Error | None:
    """Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503
    if the engine is down)

     Roles: admin, reviewer.

    Args:
        decision_id (str):
        idempotency_key (str | Unset):
        body (PostV1ApprovalsDecisionIdDenyBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | Error
    """

    return sync_detailed(
        decision_id=decision_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    decision_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ApprovalsDecisionIdDenyBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Decision | Error]:
    """Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503
    if the engine is down)

     Roles: admin, reviewer.

    Args:
        decision_id (str):
        idempotency_key (str | Unset):
        body (PostV1ApprovalsDecisionIdDenyBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Decision | Error]
    """

    kwargs = _get_kwargs(
        decision_id=decision_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    decision_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ApprovalsDecisionIdDenyBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Decision | Error | None:
    """Deny a held request: one denial denies at once (waits ≤ 10 s for the workflow; 409 if resolved, 503
    if the engine is down)

     Roles: admin, reviewer.

    Args:
        decision_id (str):
        idempotency_key (str | Unset):
        body (PostV1ApprovalsDecisionIdDenyBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Decision | Error
    """

    return (
        await asyncio_detailed(
            decision_id=decision_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
