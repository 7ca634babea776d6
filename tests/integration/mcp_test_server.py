"""An MCP server for the MCP client tests, written with the SDK's low-level server API.

Run `python mcp_test_server.py` for stdio, or `python mcp_test_server.py --http` to serve
streamable HTTP on a free localhost port, printed on the first line of stdout. Its tools cover
every case the client adapter handles: plain, structured, failing, read-only, image results,
every other content kind with annotations (`media`), structured content beside content,
schemas using `$ref`/`anyOf`/`minimum` (and one with an unknown keyword), a name too long for a
model, two names that collide once sanitised, slow and hanging calls, a tool that changes
the tool list and says so, task-required and task-optional tools, progress notifications and
an elicitation (an `elicitation/create` request, or an input-required round on 2026-07-28).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from typing import Any, Final

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

LONG_NAME: Final = "fetch_the_current_weather_forecast_for_a_city_given_its_name_and_country"
"""71 characters: too long for any model-facing name."""

PIXEL: Final = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9Q"
    "DwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG, base64-encoded."""

_TEXT: Final = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
_NOTHING: Final[dict[str, Any]] = {"type": "object", "properties": {}}
_SECONDS: Final = {"type": "object", "properties": {"seconds": {"type": "number"}}}
_SUM: Final = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
_TWO: Final = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}
_RANGE: Final = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "$defs": {"count": {"type": "integer", "minimum": 0}},
    "properties": {
        "low": {"$ref": "#/$defs/count"},
        "high": {"anyOf": [{"$ref": "#/$defs/count"}, {"type": "null"}]},
    },
    "required": ["low"],
}
AUDIENCE: Final = types.Annotations(audience=["user"], priority=0.5)
"""The annotations `media` puts on its blocks."""

MEDIA: Final[list[types.ContentBlock]] = [
    types.TextContent(text="all kinds:", annotations=AUDIENCE),
    types.ImageContent(data=PIXEL, mime_type="image/png", annotations=AUDIENCE),
    types.AudioContent(data="UklGRgAAAABXQVZF", mime_type="audio/wav"),
    types.EmbeddedResource(
        resource=types.TextResourceContents(
            uri="file:///notes.md", text="# Notes", mime_type="text/markdown"
        ),
        annotations=AUDIENCE,
    ),
    types.EmbeddedResource(
        resource=types.BlobResourceContents(uri="file:///blob.bin", blob="AAECAw==")
    ),
    types.ResourceLink(
        uri="file:///big.csv",
        name="big.csv",
        title="Big table",
        description="too big to embed",
        mime_type="text/csv",
        size=123456,
        annotations=AUDIENCE,
    ),
]
"""One block of every MCP content kind."""

ASK: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"decision": {"type": "string", "enum": ["once", "always", "reject"]}},
    "required": ["decision"],
}
"""The form `confirm` asks with."""

_FROBNICATED: Final = {
    "type": "object",
    "properties": {"level": {"type": "integer", "x-frobnicate": True}},
}


def _tool(name: str, schema: dict[str, Any], **fields: Any) -> types.Tool:
    return types.Tool(name=name, description=f"The {name} tool.", input_schema=schema, **fields)


TOOLS: list[types.Tool] = [
    _tool("echo", _TEXT),
    _tool("add", _TWO, output_schema=_SUM),
    _tool("bad_add", _TWO, output_schema=_SUM),
    _tool("fail", _NOTHING),
    _tool("peek", _SECONDS, annotations=types.ToolAnnotations(read_only_hint=True)),
    _tool("picture", _NOTHING),
    _tool("range", _RANGE),
    _tool("frobnicate", _FROBNICATED),
    _tool(LONG_NAME, _NOTHING),
    _tool("get_item", _NOTHING),
    _tool("get.item", _NOTHING),
    _tool("slow", _SECONDS),
    _tool("cancelled", _NOTHING),
    _tool("peek_peak", _NOTHING),
    _tool("hang", _NOTHING),
    _tool("pid", _NOTHING),
    _tool("change_tools", _NOTHING),
    _tool("media", _NOTHING),
    _tool("structured_media", _NOTHING),
    _tool("task_only", _NOTHING, execution=types.ToolExecution(task_support="required")),
    _tool("task_maybe", _NOTHING, execution=types.ToolExecution(task_support="optional")),
    _tool("progress", _NOTHING),
    _tool("confirm", _NOTHING),
]

CANCELLED: list[str] = []
"""The tools whose calls this server saw cancelled."""

PEEKING: Final = [0, 0]
"""`peek` calls in flight now, and the most ever in flight at once."""

BUS: Final = InMemorySubscriptionBus()


def _text(text: str, *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    """Every tool this server has now."""
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """Run one tool."""
    args = params.arguments or {}
    match params.name:
        case "echo" | "range":
            return _text(json.dumps(args) if params.name == "range" else str(args["text"]))
        case "add" | "bad_add":
            total = args["a"] + args["b"]
            structured = {"sum": total if params.name == "add" else str(total)}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(structured))],
                structured_content=structured,
            )
        case "fail":
            return _text("it failed on purpose", is_error=True)
        case "picture":
            return types.CallToolResult(
                content=[
                    types.TextContent(text="a pixel:"),
                    types.ImageContent(data=PIXEL, mime_type="image/png"),
                ]
            )
        case "slow":
            return await _slow(ctx, float(args.get("seconds", 30)))
        case "peek":
            PEEKING[0] += 1
            PEEKING[1] = max(PEEKING[1], PEEKING[0])
            try:
                await anyio.sleep(float(args.get("seconds", 0)))
            finally:
                PEEKING[0] -= 1
            return _text("peeked")
        case "peek_peak":
            return _text(str(PEEKING[1]))
        case "cancelled":
            return _text(json.dumps(CANCELLED))
        case "hang":
            time.sleep(3600)  # blocks the whole server: it reads nothing more
            return _text("unreachable")
        case "pid":
            return _text(str(os.getpid()))
        case "change_tools":
            return await _change_tools(ctx)
        case "media":
            return types.CallToolResult(content=MEDIA)
        case "structured_media":
            return types.CallToolResult(
                content=MEDIA[:2], structured_content={"width": 1, "height": 1}
            )
        case "progress":
            for step in range(1, 4):
                await ctx.session.report_progress(step, 3, f"step {step}")
            return _text("progressed")
        case "confirm":
            return await _confirm(ctx, params)
        case _:
            return _text(f"{params.name} ran")


async def _confirm(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """Ask the client to confirm: the answer's action and content, as text."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        answer = (params.input_responses or {}).get("confirm")
        if answer is None:
            form = types.ElicitRequestFormParams(message="Go ahead?", requested_schema=ASK)
            request = types.ElicitRequest(params=form)
            return types.InputRequiredResult(input_requests={"confirm": request})
    else:
        answer = await ctx.session.elicit_form("Go ahead?", ASK, ctx.request_id)
    assert isinstance(answer, types.ElicitResult)
    return _text(json.dumps({"action": answer.action, "content": answer.content}))


async def _slow(ctx: ServerRequestContext[Any], seconds: float) -> types.CallToolResult:
    """Say it has started (a progress notification), then sleep."""
    try:
        await ctx.session.report_progress(0, None, "started")
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        CANCELLED.append("slow")
        raise
    return _text(f"slept {seconds}s")


async def _change_tools(ctx: ServerRequestContext[Any]) -> types.CallToolResult:
    TOOLS[:] = [tool for tool in TOOLS if tool.name != "fail"]
    TOOLS.append(_tool("extra", _NOTHING))
    await BUS.publish(ToolsListChanged())  # 2026-07-28: to subscriptions/listen streams
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        await ctx.session.send_tool_list_changed()
    return _text("changed")


SERVER: Final = Server(
    "toolfx-test",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_subscriptions_listen=ListenHandler(BUS),
)


async def serve_stdio() -> None:
    """Serve one client over stdin and stdout."""
    options = SERVER.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await SERVER.run(read_stream, write_stream, options)


async def serve_http() -> None:
    """Serve streamable HTTP on a free localhost port, printed first on stdout."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(listener.getsockname()[1], flush=True)
    config = uvicorn.Config(SERVER.streamable_http_app(), log_level="warning")
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    anyio.run(serve_http if "--http" in sys.argv else serve_stdio)
