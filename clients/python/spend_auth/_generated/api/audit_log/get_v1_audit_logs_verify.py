from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.audit_verification import AuditVerification
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    checkpoint: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["checkpoint"] = checkpoint

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit-logs/verify",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AuditVerification | Error:
    if response.status_code == 200:
        response_200 = AuditVerification.from_dict(response.json())

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

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    response_default = Error.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AuditVerification | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    checkpoint: str | Unset = UNSET,
) -> Response[AuditVerification | Error]:
    """Recompute the hash chain, count decisions without a record, check that the books balance, check a
    kept checkpoint and sign a new one

     Roles: admin, reviewer.

    Args:
        checkpoint (str | Unset): A checkpoint an earlier verify returned: the answer says whether
            the record it names is still there (`checkpoint_check`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditVerification | Error]
    """

    kwargs = _get_kwargs(
        checkpoint=checkpoint,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    checkpoint: str | Unset = UNSET,
) -> AuditVerification | Error | None:
    """Recompute the hash chain, count decisions without a record, check that the books balance, check a
    kept checkpoint and sign a new one

     Roles: admin, reviewer.

    Args:
        checkpoint (str | Unset): A checkpoint an earlier verify returned: the answer says whether
            the record it names is still there (`checkpoint_check`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditVerification | Error
    """

    return sync_detailed(
        client=client,
        checkpoint=checkpoint,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    checkpoint: str | Unset = UNSET,
) -> Response[AuditVerification | Error]:
    """Recompute the hash chain, count decisions without a record, check that the books balance, check a
    kept checkpoint and sign a new one

     Roles: admin, reviewer.

    Args:
        checkpoint (str | Unset): A checkpoint an earlier verify returned: the answer says whether
            the record it names is still there (`checkpoint_check`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditVerification | Error]
    """

    kwargs = _get_kwargs(
        checkpoint=checkpoint,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    checkpoint: str | Unset = UNSET,
) -> AuditVerification | Error | None:
    """Recompute the hash chain, count decisions without a record, check that the books balance, check a
    kept checkpoint and sign a new one

     Roles: admin, reviewer.

    Args:
        checkpoint (str | Unset): A checkpoint an earlier verify returned: the answer says whether
            the record it names is still there (`checkpoint_check`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditVerification | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            checkpoint=checkpoint,
        )
    ).parsed
