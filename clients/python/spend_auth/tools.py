"""The authorize-and-wait call as a tool for agent frameworks, named ``authorize_spend`` and taking
the input of the service's MCP tool of that name (src/mcp).

    from spend_auth import SpendAuth
    from spend_auth.tools import openai_agents_tool, langchain_tool

    client = SpendAuth(base_url=..., api_key=...)
    agent = Agent(name="buyer", tools=[openai_agents_tool(client, wait=120)])   # pip install spend-auth[openai-agents]
    tools = [langchain_tool(client, wait=120)]                                  # pip install spend-auth[langchain]

Calling the tool runs ``client.authorize(request, wait=wait)`` and answers the decision object as
JSON. An API error is answered too, as ``{"error": {code, message, param, request_id, status}}`` (a
LangChain ToolException, handled), so the model reads why instead of the run crashing. The
frameworks are imported only when a tool is built: each is an optional extra.
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from . import _http
from ._async import AsyncSpendAuth
from ._sync import SpendAuth
from .errors import SpendAuthError

if TYPE_CHECKING:
    from agents import FunctionTool
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel

TOOL_NAME = "authorize_spend"
DEFAULT_WAIT_SECONDS = 60.0


def tool_description(wait: float) -> str:
    return (
        "Ask the spend authorization service for permission before spending money. Answers the decision as JSON: "
        "decision approved (go ahead: pass authorization_token to the payment rail), denied (do not buy; reason says "
        "why) or held (a human must review it first). A held request is waited on for up to "
        f"{wait:g} seconds; if it is still held then, do not buy: say that decision_id awaits a human reviewer. "
        "Amounts are integers in minor units: 1999 USD = $19.99."
    )


def _require(module: str, extra: str) -> None:
    try:
        __import__(module)
    except ImportError as exc:
        raise ImportError(f"{module} is not installed: pip install 'spend-auth[{extra}]'") from exc


@lru_cache(maxsize=1)
def input_model() -> type[BaseModel]:
    """The tool's input (pydantic, which both frameworks depend on): the MCP tool's fields."""
    from pydantic import BaseModel, ConfigDict, Field

    class AuthorizeSpendInput(BaseModel):
        # Other members are ignored, as the MCP tool and the TypeScript tool ignore them.
        model_config = ConfigDict(extra="ignore", title="authorize_spend")

        agent_id: str | None = Field(
            default=None,
            min_length=1,
            max_length=100,
            description="The agent making the spend (agt_…). May be omitted when the tool has a default agent or the API key is an agent key.",
        )
        amount: int = Field(gt=0, le=9007199254740991, description="Amount in minor units (cents for USD), e.g. 1999 for $19.99")
        currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code, e.g. USD")
        vendor: str = Field(min_length=1, max_length=255, description="Counterparty name or domain, e.g. openai.com")
        category: str | None = Field(default=None, min_length=1, max_length=64, description="Spend category, e.g. saas, compute, travel")
        metadata: dict[str, str | int | float | bool] | None = Field(
            default=None, description="Key-value pairs stored on the audit log, e.g. an invoice number"
        )
        idempotency_key: str | None = Field(
            default=None,
            min_length=1,
            max_length=255,
            description="Send the same value when retrying the same purchase: it is then never decided twice",
        )

    return AuthorizeSpendInput


def _error_json(error: SpendAuthError) -> str:
    return json.dumps(
        {"error": {"code": error.code, "message": error.message, "param": error.param, "request_id": error.request_id, "status": error.status}}
    )


def _body(args: dict[str, Any], agent_id: str | None) -> tuple[dict[str, Any], str | None]:
    args = {k: v for k, v in args.items() if v is not None}
    key = args.pop("idempotency_key", None)
    if "agent_id" not in args and agent_id is not None:
        args["agent_id"] = agent_id
    return args, key


def _agent_of_key_sync(client: SpendAuth) -> str | None:
    agent: str | None = client._request("GET", "/api-keys/self").get("agent_id")
    return agent


async def _agent_of_key_async(client: AsyncSpendAuth) -> str | None:
    agent: str | None = (await client._request("GET", "/api-keys/self")).get("agent_id")
    return agent


def _sync_runner(client: SpendAuth, wait: float, agent_id: str | None) -> Callable[..., str]:
    def run(**args: Any) -> str:
        body, key = _body(args, agent_id)
        if "agent_id" not in body:
            body["agent_id"] = _agent_of_key_sync(client)
        return json.dumps(client.authorize(body, wait=wait, idempotency_key=key))

    return run


def _async_runner(client: SpendAuth | AsyncSpendAuth, wait: float, agent_id: str | None) -> Callable[..., Awaitable[str]]:
    if isinstance(client, SpendAuth):
        sync = _sync_runner(client, wait, agent_id)

        async def run_in_thread(**args: Any) -> str:
            return await asyncio.to_thread(lambda: sync(**args))

        return run_in_thread

    async def run(**args: Any) -> str:
        body, key = _body(args, agent_id)
        if "agent_id" not in body:
            body["agent_id"] = await _agent_of_key_async(client)
        return json.dumps(await client.authorize(body, wait=wait, idempotency_key=key))

    return run


def openai_agents_tool(
    client: SpendAuth | AsyncSpendAuth, *, wait: float = DEFAULT_WAIT_SECONDS, agent_id: str | None = None
) -> FunctionTool:
    """``authorize_spend`` as an OpenAI Agents SDK FunctionTool. Its schema is not strict (the
    metadata object has free keys, which strict mode cannot say): the SDK's models still follow it;
    arguments are validated here and a bad one is answered as an ``invalid_request`` error."""
    wait = _http.check_wait(wait)
    _require("agents", "openai-agents")
    from agents import FunctionTool
    from pydantic import ValidationError

    model = input_model()
    run = _async_runner(client, wait, agent_id)

    async def on_invoke_tool(_ctx: Any, arguments: str) -> str:
        try:
            args = model.model_validate_json(arguments or "{}").model_dump(exclude_none=True)
        except ValidationError as exc:
            errors = exc.errors()
            param = ".".join(str(p) for p in errors[0]["loc"]) if errors else None
            message = errors[0]["msg"] if errors else str(exc)
            return json.dumps({"error": {"code": "invalid_request", "message": message, "param": param or None}})
        try:
            return await run(**args)
        except SpendAuthError as exc:
            return _error_json(exc)

    return FunctionTool(
        name=TOOL_NAME,
        description=tool_description(wait),
        params_json_schema=model.model_json_schema(),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=False,
    )


def langchain_tool(
    client: SpendAuth | AsyncSpendAuth, *, wait: float = DEFAULT_WAIT_SECONDS, agent_id: str | None = None
) -> StructuredTool:
    """``authorize_spend`` as a LangChain StructuredTool: ``invoke`` and ``ainvoke`` with a
    SpendAuth, ``ainvoke`` only with an AsyncSpendAuth. API errors are handled ToolExceptions whose
    message (the tool's answer) is the error JSON."""
    wait = _http.check_wait(wait)
    _require("langchain_core", "langchain")
    from langchain_core.tools import StructuredTool, ToolException

    def sync_guarded(**args: Any) -> str:
        assert sync is not None
        try:
            return sync(**args)
        except SpendAuthError as exc:
            raise ToolException(_error_json(exc)) from exc

    async def async_guarded(**args: Any) -> str:
        try:
            return await run(**args)
        except SpendAuthError as exc:
            raise ToolException(_error_json(exc)) from exc

    sync = _sync_runner(client, wait, agent_id) if isinstance(client, SpendAuth) else None
    run = _async_runner(client, wait, agent_id)
    return StructuredTool.from_function(
        func=sync_guarded if sync is not None else None,
        coroutine=async_guarded,
        name=TOOL_NAME,
        description=tool_description(wait),
        args_schema=input_model(),
        handle_tool_error=True,
    )


__all__ = ["TOOL_NAME", "input_model", "langchain_tool", "openai_agents_tool", "tool_description"]
