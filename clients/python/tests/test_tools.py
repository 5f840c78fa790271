"""authorize_spend as each framework builds it: its JSON schema, and calls, with no model."""

from __future__ import annotations

import json
import threading

import pytest
from agents import FunctionTool
from agents.tool_context import ToolContext
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from spend_auth import AsyncSpendAuth, SpendAuth
from spend_auth.tools import TOOL_NAME, langchain_tool, openai_agents_tool

from .conftest import HOLD_ABOVE, World

FIELDS = {"agent_id", "amount", "currency", "vendor", "category", "metadata", "idempotency_key"}


def _check_schema(schema: dict) -> None:
    assert schema["type"] == "object" and set(schema["properties"]) == FIELDS
    assert sorted(schema["required"]) == ["amount", "currency", "vendor"]
    assert schema["properties"]["amount"]["type"] == "integer" and schema["properties"]["amount"]["exclusiveMinimum"] == 0
    assert schema["properties"]["currency"]["pattern"] == "^[A-Z]{3}$"
    # Other members are ignored, as the MCP tool and the TypeScript tool ignore them: not refused.
    assert schema.get("additionalProperties") is not False


async def _invoke(tool: FunctionTool, args: dict) -> dict:
    text = json.dumps(args)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=text)
    return json.loads(await tool.on_invoke_tool(ctx, text))


async def test_openai_agents_tool(client: SpendAuth, world: World) -> None:
    tool = openai_agents_tool(client, wait=30, agent_id=world.agent_id)
    assert isinstance(tool, FunctionTool) and tool.name == TOOL_NAME == "authorize_spend"
    assert "approved" in tool.description and "denied" in tool.description and "held" in tool.description
    _check_schema(tool.params_json_schema)
    approved = await _invoke(tool, {"amount": 1999, "currency": "USD", "vendor": "tools.example.com", "category": "saas"})
    assert approved["decision"] == "approved" and approved["authorization_token"].startswith("gca_")
    assert approved["agent_id"] == world.agent_id
    denied = await _invoke(tool, {"amount": 1999, "currency": "USD", "vendor": "blocked.example"})
    assert denied["decision"] == "denied"
    extra = await _invoke(tool, {"amount": 1999, "currency": "USD", "vendor": "tools-extra.example.com", "reason": "a model's own member"})
    assert extra["decision"] == "approved" and "reason" not in (extra.get("metadata") or {})
    bad = await _invoke(tool, {"amount": 0, "currency": "USD", "vendor": "x.com"})
    assert bad["error"]["code"] == "invalid_request" and bad["error"]["param"] == "amount"
    unknown = await _invoke(tool, {"agent_id": "agt_nosuchagent", "amount": 5, "currency": "USD", "vendor": "x.com"})
    assert unknown["error"]["code"] == "not_found" and unknown["error"]["status"] == 404


async def test_openai_agents_tool_waits_for_the_reviewer(world: World) -> None:
    async with AsyncSpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        tool = openai_agents_tool(c, wait=90)
        vendor = "held-tool.example.com"
        approver = threading.Thread(target=world.approve_when_pending, args=(vendor,))
        approver.start()
        d = await _invoke(tool, {"agent_id": world.agent_id, "amount": HOLD_ABOVE + 1, "currency": "USD", "vendor": vendor})
        approver.join(90)
    assert d["decision"] == "approved" and d["status"] == "approved" and d["authorization_token"].startswith("gca_")


def test_langchain_tool(client: SpendAuth, world: World) -> None:
    tool = langchain_tool(client, wait=1)
    assert isinstance(tool, BaseTool) and tool.name == TOOL_NAME
    spec = convert_to_openai_tool(tool)["function"]
    assert spec["name"] == TOOL_NAME and "held" in spec["description"]
    _check_schema(spec["parameters"])
    _check_schema(tool.args_schema.model_json_schema())
    approved = json.loads(tool.invoke({"agent_id": world.agent_id, "amount": 250, "currency": "USD", "vendor": "lc.example.com", "note": "ignored"}))
    assert approved["decision"] == "approved"
    held = json.loads(tool.invoke({"agent_id": world.agent_id, "amount": HOLD_ABOVE + 1, "currency": "USD", "vendor": "lc-held.example.com"}))
    assert held["decision"] == "held" and held["status"] == "pending"  # wait=1 ran out
    error = json.loads(tool.invoke({"agent_id": "agt_nosuchagent", "amount": 250, "currency": "USD", "vendor": "x.com"}))
    assert error["error"]["code"] == "not_found"
    # Schema-invalid arguments are refused by LangChain's own validation.
    with pytest.raises(Exception, match="amount"):
        tool.invoke({"agent_id": world.agent_id, "amount": -1, "currency": "USD", "vendor": "x.com"})


async def test_langchain_tool_async(world: World) -> None:
    async with AsyncSpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        tool = langchain_tool(c, agent_id=world.agent_id)
        result = json.loads(await tool.ainvoke({"amount": 250, "currency": "USD", "vendor": "lc-async.example.com"}))
    assert result["decision"] == "approved" and result["agent_id"] == world.agent_id
