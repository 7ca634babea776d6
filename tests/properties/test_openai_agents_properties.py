"""A strict toolfx tool inside the Agents SDK gets the same arguments whatever form the SDK hands
them in: the object its approval policy reads (`needs_approval`) or the text `on_invoke_tool`
reads (compact or spaced out), strict-mode nulls undone in each (random derived argument types,
sent as strict mode sends them: every property, an omitted one as null)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
from agents import RunContextWrapper
from agents.tool_context import ToolContext
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.properties.test_provider_properties import argument_types, with_nulls
from tests.properties.test_schema_properties import values_for
from toolfx.core import Location, Output, define_tool
from toolfx.core.json import thaw_json
from toolfx.core.providers import undo_strict_nulls
from toolfx.core.schema import schema_of
from toolfx.interpreters.openai_agents import function_tools

if TYPE_CHECKING:
    from agents import FunctionTool

    from toolfx.core import ToolRunContext


async def _approval_then_invoke(tool: FunctionTool, call_id: str, sent: dict[str, Any]) -> Any:
    """The call as a run makes it: the policy runs it on the parsed object, invoke returns it."""
    assert await tool.needs_approval(RunContextWrapper(None), sent, call_id) is False  # type: ignore[operator]
    return await _invoke(tool, call_id, "this text is not read: the policy's run is kept")


async def _invoke(tool: FunctionTool, call_id: str, text: str) -> Any:
    context = ToolContext(None, tool_name=tool.name, tool_call_id=call_id, tool_arguments=text)
    return await tool.on_invoke_tool(context, text)


@settings(max_examples=60)
@given(st.data())
def test_every_form_of_a_strict_call_reaches_the_tool_with_its_nulls_undone(
    data: st.DataObject,
) -> None:
    tp = data.draw(argument_types)
    value = data.draw(values_for(tp))
    schema = schema_of(tp)
    seen: list[object] = []

    def echo(args: Any, ctx: ToolRunContext) -> str:
        seen.append(args)
        return "ran"

    location = Location()
    location.register(
        define_tool(name="t", description="T", parameters=tp, output=Output(str), execute=echo)
    )
    (tool,) = function_tools(location)
    event(f"strict: {tool.strict_json_schema}")
    if not tool.strict_json_schema:
        return
    original = thaw_json(schema.encode(value).unwrap())
    sent = with_nulls(original, thaw_json(schema.json_schema))
    outputs = [
        anyio.run(_approval_then_invoke, tool, "object", sent),
        anyio.run(_invoke, tool, "compact", json.dumps(sent)),
        anyio.run(_invoke, tool, "spaced", json.dumps(sent, indent=2)),
    ]
    assert outputs == ["ran"] * 3, outputs
    expected = schema.validate(undo_strict_nulls(schema.json_schema, sent)).unwrap()
    assert seen == [expected] * 3
