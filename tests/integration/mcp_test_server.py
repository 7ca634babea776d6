"""An MCP server for the MCP client tests, written with the SDK's low-level server API.

Run `python mcp_test_server.py` for stdio, or `python mcp_test_server.py --http` to serve
streamable HTTP on a free localhost port, printed on the first line of stdout. Its tools cover
every case the client adapter handles: plain, structured, failing, read-only, image results,
schemas using `$ref`/`anyOf`/`minimum` (and one with an unknown keyword), a name too long for a
model, two names that collide once sanitised, slow and hanging calls, and a tool that changes
the tool list and says so.
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
) -> types.CallToolResult:
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
            return await _slow(float(args.get("seconds", 30)))
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
        case _:
            return _text(f"{params.name} ran")


async def _slow(seconds: float) -> types.CallToolResult:
    try:
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
