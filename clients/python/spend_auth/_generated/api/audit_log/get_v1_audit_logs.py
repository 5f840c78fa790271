import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.audit_record_list import AuditRecordList
from ...models.error import Error
from ...models.get_v1_audit_logs_decision import GetV1AuditLogsDecision
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    agent_id: str | Unset = UNSET,
    decision: GetV1AuditLogsDecision | Unset = UNSET,
    type_: str | Unset = UNSET,
    from_: datetime.date | datetime.datetime | Unset = UNSET,
    to: datetime.date | datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["agent_id"] = agent_id

    json_decision: str | Unset = UNSET
    if not isinstance(decision, Unset):
        json_decision = decision.value

    params["decision"] = json_decision

    params["type"] = type_

    json_from_: str | Unset
    if isinstance(from_, Unset):
        json_from_ = UNSET
    elif isinstance(from_, datetime.datetime):
        json_from_ = from_.isoformat()
    else:
        json_from_ = from_.isoformat()

    params["from"] = json_from_

    json_to: str | Unset
    if isinstance(to, Unset):
        json_to = UNSET
    elif isinstance(to, datetime.datetime):
        json_to = to.isoformat()
    else:
        json_to = to.isoformat()

    params["to"] = json_to

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit-logs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AuditRecordList | Error:
    if response.status_code == 200:
        response_200 = AuditRecordList.from_dict(response.json())

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
) -> Response[AuditRecordList | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    agent_id: str | Unset = UNSET,
    decision: GetV1AuditLogsDecision | Unset = UNSET,
    type_: str | Unset = UNSET,
    from_: datetime.date | datetime.datetime | Unset = UNSET,
    to: datetime.date | datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[AuditRecordList | Error]:
    """List audit records (JSON, or CSV with Accept: text/csv)

     Roles: admin, reviewer.

    Args:
        agent_id (str | Unset):
        decision (GetV1AuditLogsDecision | Unset):
        type_ (str | Unset):
        from_ (datetime.date | datetime.datetime | Unset):
        to (datetime.date | datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditRecordList | Error]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        decision=decision,
        type_=type_,
        from_=from_,
        to=to,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    agent_id: str | Unset = UNSET,
    decision: GetV1AuditLogsDecision | Unset = UNSET,
    type_: str | Unset = UNSET,
    from_: datetime.date | datetime.datetime | Unset = UNSET,
    to: datetime.date | datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> AuditRecordList | Error | None:
    """List audit records (JSON, or CSV with Accept: text/csv)

     Roles: admin, reviewer.

    Args:
        agent_id (str | Unset):
        decision (GetV1AuditLogsDecision | Unset):
        type_ (str | Unset):
        from_ (datetime.date | datetime.datetime | Unset):
        to (datetime.date | datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditRecordList | Error
    """

    return sync_detailed(
        client=client,
        agent_id=agent_id,
        decision=decision,
        type_=type_,
        from_=from_,
        to=to,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    agent_id: str | Unset = UNSET,
    decision: GetV1AuditLogsDecision | Unset = UNSET,
    type_: str | Unset = UNSET,
    from_: datetime.date | datetime.datetime | Unset = UNSET,
    to: datetime.date | datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[AuditRecordList | Error]:
    """List audit records (JSON, or CSV with Accept: text/csv)

     Roles: admin, reviewer.

    Args:
        agent_id (str | Unset):
        decision (GetV1AuditLogsDecision | Unset):
        type_ (str | Unset):
        from_ (datetime.date | datetime.datetime | Unset):
        to (datetime.date | datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditRecordList | Error]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        decision=decision,
        type_=type_,
        from_=from_,
        to=to,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    agent_id: str | Unset = UNSET,
    decision: GetV1AuditLogsDecision | Unset = UNSET,
    type_: str | Unset = UNSET,
    from_: datetime.date | datetime.datetime | Unset = UNSET,
    to: datetime.date | datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> AuditRecordList | Error | None:
    """List audit records (JSON, or CSV with Accept: text/csv)

     Roles: admin, reviewer.

    Args:
        agent_id (str | Unset):
        decision (GetV1AuditLogsDecision | Unset):
        type_ (str | Unset):
        from_ (datetime.date | datetime.datetime | Unset):
        to (datetime.date | datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset): The `next_cursor` of the previous page, exactly as this service
            returned it (opaque; any other value is refused with 400, `param` `cursor`)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditRecordList | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            agent_id=agent_id,
            decision=decision,
            type_=type_,
            from_=from_,
            to=to,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
