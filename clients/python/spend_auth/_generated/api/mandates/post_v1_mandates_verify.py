from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.mandate_verification import MandateVerification
from ...models.post_v1_mandates_verify_body import PostV1MandatesVerifyBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostV1MandatesVerifyBody,
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
        "url": "/v1/mandates/verify",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | MandateVerification:
    if response.status_code == 200:
        response_200 = MandateVerification.from_dict(response.json())

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
) -> Response[Error | MandateVerification]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1MandatesVerifyBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[Error | MandateVerification]:
    """Verify an AP2 mandate presentation (`<open>~~<closed>~`) and decide the payment it closes

     The presentation is checked in the order of DECISIONS §20 (first failure wins), and every completed
    check answers 200 with AP2's signed receipt: `status: "Success"` with a `gca_` token, or `status:
    "Error"` with AP2's `error` (`mandates_not_supported`, `invalid_credential`, `invalid_mandate`,
    `unresolved_constraint`). From the policy checks on, the outcome is a decision like an authorize one
    (counted, audited, billed). The same closed mandate presented again gets its first answer, byte for
    byte, with `Idempotent-Replayed: true`. 400 only for the body's shape.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1MandatesVerifyBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | MandateVerification]
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
    body: PostV1MandatesVerifyBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Error | MandateVerification | None:
    """Verify an AP2 mandate presentation (`<open>~~<closed>~`) and decide the payment it closes

     The presentation is checked in the order of DECISIONS §20 (first failure wins), and every completed
    check answers 200 with AP2's signed receipt: `status: "Success"` with a `gca_` token, or `status:
    "Error"` with AP2's `error` (`mandates_not_supported`, `invalid_credential`, `invalid_mandate`,
    `unresolved_constraint`). From the policy checks on, the outcome is a decision like an authorize one
    (counted, audited, billed). The same closed mandate presented again gets its first answer, byte for
    byte, with `Idempotent-Replayed: true`. 400 only for the body's shape.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1MandatesVerifyBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | MandateVerification
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
    body: PostV1MandatesVerifyBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Response[Error | MandateVerification]:
    """Verify an AP2 mandate presentation (`<open>~~<closed>~`) and decide the payment it closes

     The presentation is checked in the order of DECISIONS §20 (first failure wins), and every completed
    check answers 200 with AP2's signed receipt: `status: "Success"` with a `gca_` token, or `status:
    "Error"` with AP2's `error` (`mandates_not_supported`, `invalid_credential`, `invalid_mandate`,
    `unresolved_constraint`). From the policy checks on, the outcome is a decision like an authorize one
    (counted, audited, billed). The same closed mandate presented again gets its first answer, byte for
    byte, with `Idempotent-Replayed: true`. 400 only for the body's shape.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1MandatesVerifyBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | MandateVerification]
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
    body: PostV1MandatesVerifyBody,
    idempotency_key: str | Unset = UNSET,
    signature_input: str | Unset = UNSET,
    signature: str | Unset = UNSET,
    signature_agent: str | Unset = UNSET,
    content_digest: str | Unset = UNSET,
) -> Error | MandateVerification | None:
    """Verify an AP2 mandate presentation (`<open>~~<closed>~`) and decide the payment it closes

     The presentation is checked in the order of DECISIONS §20 (first failure wins), and every completed
    check answers 200 with AP2's signed receipt: `status: "Success"` with a `gca_` token, or `status:
    "Error"` with AP2's `error` (`mandates_not_supported`, `invalid_credential`, `invalid_mandate`,
    `unresolved_constraint`). From the policy checks on, the outcome is a decision like an authorize one
    (counted, audited, billed). The same closed mandate presented again gets its first answer, byte for
    byte, with `Idempotent-Replayed: true`. 400 only for the body's shape.

    Roles: admin, agent.

    Args:
        idempotency_key (str | Unset):
        signature_input (str | Unset):
        signature (str | Unset):
        signature_agent (str | Unset):
        content_digest (str | Unset):
        body (PostV1MandatesVerifyBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | MandateVerification
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
