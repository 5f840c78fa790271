from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.post_rails_stripe_issuing_id_body import PostRailsStripeIssuingIdBody
from ...models.rail_answer_type_0 import RailAnswerType0
from ...models.rail_answer_type_1 import RailAnswerType1
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: PostRailsStripeIssuingIdBody,
    stripe_signature: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Stripe-Signature"] = stripe_signature

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/rails/stripe-issuing/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RailAnswerType0 | RailAnswerType1:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> RailAnswerType0 | RailAnswerType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_rail_answer_type_0 = RailAnswerType0.from_dict(data)

                return componentsschemas_rail_answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_rail_answer_type_1 = RailAnswerType1.from_dict(data)

            return componentsschemas_rail_answer_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

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
) -> Response[Error | RailAnswerType0 | RailAnswerType1]:
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
    body: PostRailsStripeIssuingIdBody,
    stripe_signature: str,
) -> Response[Error | RailAnswerType0 | RailAnswerType1]:
    """Stripe Issuing's real-time authorization webhook, and the card's later events (no key: Stripe's
    signature authenticates)

     `issuing_authorization.request` is decided as `POST /v1/authorize` decides (an uncaptured approval
    of the agent that covers it is captured first) and answered within the deadline (1.5 s; past it, the
    connection's `on_timeout`). `issuing_authorization.created|updated` and
    `issuing_transaction.created` adjust what the approval counts (reversal, partial capture, decline,
    refund), once however often sent. A repeated event or authorization gets the first answer. Other
    events: `{"received": true}`. A bad or stale signature, an unknown connection, a body that is not
    I-JSON or a livemode that differs from the connection's → 400, nothing recorded. Limited per
    connection at its account's limit for the mode. See docs/rails/stripe-issuing.md.

    Public: no key needed.

    Args:
        id (str):
        stripe_signature (str):
        body (PostRailsStripeIssuingIdBody): A Stripe event, signed by Stripe (`Stripe-
            Signature`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RailAnswerType0 | RailAnswerType1]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        stripe_signature=stripe_signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostRailsStripeIssuingIdBody,
    stripe_signature: str,
) -> Error | RailAnswerType0 | RailAnswerType1 | None:
    """Stripe Issuing's real-time authorization webhook, and the card's later events (no key: Stripe's
    signature authenticates)

     `issuing_authorization.request` is decided as `POST /v1/authorize` decides (an uncaptured approval
    of the agent that covers it is captured first) and answered within the deadline (1.5 s; past it, the
    connection's `on_timeout`). `issuing_authorization.created|updated` and
    `issuing_transaction.created` adjust what the approval counts (reversal, partial capture, decline,
    refund), once however often sent. A repeated event or authorization gets the first answer. Other
    events: `{"received": true}`. A bad or stale signature, an unknown connection, a body that is not
    I-JSON or a livemode that differs from the connection's → 400, nothing recorded. Limited per
    connection at its account's limit for the mode. See docs/rails/stripe-issuing.md.

    Public: no key needed.

    Args:
        id (str):
        stripe_signature (str):
        body (PostRailsStripeIssuingIdBody): A Stripe event, signed by Stripe (`Stripe-
            Signature`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RailAnswerType0 | RailAnswerType1
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        stripe_signature=stripe_signature,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostRailsStripeIssuingIdBody,
    stripe_signature: str,
) -> Response[Error | RailAnswerType0 | RailAnswerType1]:
    """Stripe Issuing's real-time authorization webhook, and the card's later events (no key: Stripe's
    signature authenticates)

     `issuing_authorization.request` is decided as `POST /v1/authorize` decides (an uncaptured approval
    of the agent that covers it is captured first) and answered within the deadline (1.5 s; past it, the
    connection's `on_timeout`). `issuing_authorization.created|updated` and
    `issuing_transaction.created` adjust what the approval counts (reversal, partial capture, decline,
    refund), once however often sent. A repeated event or authorization gets the first answer. Other
    events: `{"received": true}`. A bad or stale signature, an unknown connection, a body that is not
    I-JSON or a livemode that differs from the connection's → 400, nothing recorded. Limited per
    connection at its account's limit for the mode. See docs/rails/stripe-issuing.md.

    Public: no key needed.

    Args:
        id (str):
        stripe_signature (str):
        body (PostRailsStripeIssuingIdBody): A Stripe event, signed by Stripe (`Stripe-
            Signature`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RailAnswerType0 | RailAnswerType1]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        stripe_signature=stripe_signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostRailsStripeIssuingIdBody,
    stripe_signature: str,
) -> Error | RailAnswerType0 | RailAnswerType1 | None:
    """Stripe Issuing's real-time authorization webhook, and the card's later events (no key: Stripe's
    signature authenticates)

     `issuing_authorization.request` is decided as `POST /v1/authorize` decides (an uncaptured approval
    of the agent that covers it is captured first) and answered within the deadline (1.5 s; past it, the
    connection's `on_timeout`). `issuing_authorization.created|updated` and
    `issuing_transaction.created` adjust what the approval counts (reversal, partial capture, decline,
    refund), once however often sent. A repeated event or authorization gets the first answer. Other
    events: `{"received": true}`. A bad or stale signature, an unknown connection, a body that is not
    I-JSON or a livemode that differs from the connection's → 400, nothing recorded. Limited per
    connection at its account's limit for the mode. See docs/rails/stripe-issuing.md.

    Public: no key needed.

    Args:
        id (str):
        stripe_signature (str):
        body (PostRailsStripeIssuingIdBody): A Stripe event, signed by Stripe (`Stripe-
            Signature`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RailAnswerType0 | RailAnswerType1
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            stripe_signature=stripe_signature,
        )
    ).parsed
