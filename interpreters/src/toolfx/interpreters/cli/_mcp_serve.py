"""`toolfx mcp serve`: the installed tools over a workspace, as an MCP server on stdin and stdout.

The tools come from the `toolfx.tools` providers like every command's (`load_catalog`), under the
rules file if one is given, presented as `--present` says (under `code` the client is offered
`run_code`, whose programs call the tools, instead of the tools themselves); `tools/list` gives
the native schemas and `tools/call` runs them through the pipeline (`_mcp_calls.py`). While it
serves, stdout carries only the protocol (the SDK points the process's fd 1 at stderr); logs go to
stderr, made visible (a client's ids and messages are in them). Started on a terminal, it first
says on stderr that it waits for a client on stdin and stdout.

Ctrl-C cancels the running calls (their commands are killed), waits for them to end, then ends
the process with one line and exit 130: the SDK reads stdin in a worker thread that no
cancellation reaches and the interpreter would wait for, so the process is ended (`os._exit`),
not unwound. A second Ctrl-C ends it at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from typing import Any, Final, cast, final

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from anyio.abc import TaskStatus
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from toolfx.core.json import thaw_json
from toolfx.core.registry import Catalog, ToolSchema
from toolfx.core.runtime import CancelSignal, spill_folder
from toolfx.interpreters._os.spills import AnyioFolderSpills
from toolfx.interpreters.cli._args import McpServeCommand, toolfx_version
from toolfx.interpreters.cli._commands import load_rules, workspace_root
from toolfx.interpreters.cli._interrupts import Interrupts, exit_at_once
from toolfx.interpreters.cli._mcp_calls import McpCalls
from toolfx.interpreters.cli._visible import visible
from toolfx.interpreters.providers import load_catalog

__all__ = [
    "LOG_FORMAT",
    "STOPPED",
    "WAITING",
    "VisibleFormatter",
    "mcp_serve",
    "mcp_server",
    "mcp_tool",
    "serve",
]

LOG_FORMAT: Final = "toolfx mcp serve: %(levelname)s %(name)s: %(message)s"
"""How each log line on stderr reads."""

WAITING: Final = (
    "toolfx mcp serve: waiting for an MCP client on stdin and stdout (a client starts this"
    " command itself; Ctrl-C stops it)"
)
"""What it says first when started on a terminal."""

STOPPED: Final = "interrupted; the MCP server stopped"
"""The line Ctrl-C ends it with (after `toolfx: `)."""


@final
class VisibleFormatter(logging.Formatter):
    """Log lines with control characters and escape sequences made visible."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record (with its traceback, if any), made visible."""
        return visible(super().format(record))


def mcp_tool(schema: ToolSchema) -> types.Tool:
    """A native tool schema as an MCP tool: its name, description and parameters' schema."""
    parameters = cast("dict[str, Any]", thaw_json(schema.parameters))  # an object: ToolDefinition
    return types.Tool(name=schema.name, description=schema.description, input_schema=parameters)


def mcp_serve(command: McpServeCommand) -> int:
    """`toolfx mcp serve`: serve the catalog over stdio until the client closes the connection."""
    root = workspace_root(command.workspace)
    catalog = load_catalog(
        root, load_rules(command.rules), command.sandbox, present=command.present
    )
    handler = logging.StreamHandler()  # stderr
    handler.setFormatter(VisibleFormatter(LOG_FORMAT))
    logging.basicConfig(handlers=[handler])
    interrupts = Interrupts()
    with interrupts.watching():
        if sys.stdin is not None and sys.stdin.isatty():
            print(WAITING, file=sys.stderr, flush=True)
        anyio.run(serve, catalog, spill_folder(root, os.environ), interrupts.signal())
    return 0


def mcp_server(
    catalog: Catalog, group: anyio.abc.TaskGroup, spills: str | None = None
) -> Server[Any]:
    """The MCP server of `catalog`: its tools listed, each call run in `group`; outputs cut for
    the client are kept whole in the folder `spills` (None: a private temporary one)."""
    tools = types.ListToolsResult(tools=[mcp_tool(s) for s in catalog.native_schemas()])

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return tools

    return Server(
        "toolfx",
        version=toolfx_version(),
        on_list_tools=list_tools,
        on_call_tool=McpCalls(catalog, group, AnyioFolderSpills(spills)).call_tool,
    )


async def serve(
    catalog: Catalog, spills: str | None = None, stop: CancelSignal | None = None
) -> None:
    """Serve `catalog` to one client over this process's stdin and stdout, until the client
    closes the connection; or until `stop` is set (Ctrl-C): the running calls are then
    cancelled and waited for, and the process ends (exit 130)."""
    gone = anyio.Event()
    async with anyio.create_task_group() as serving:
        calls = await serving.start(_calls, gone, stop)
        server = mcp_server(catalog, calls, spills)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        gone.set()


async def _calls(
    gone: anyio.Event,
    stop: CancelSignal | None,
    *,
    task_status: TaskStatus[anyio.abc.TaskGroup],
) -> None:
    """The calls' task group, until the client has `gone` or `stop` is set: then what still runs
    or waits is cancelled (its commands killed); after `stop`, the process ends."""
    token, loop_thread = anyio.lowlevel.current_token(), threading.get_ident()

    def wake() -> None:  # on the interrupts' thread; on this one if `stop` was set already
        if threading.get_ident() == loop_thread:
            gone.set()
            return
        with contextlib.suppress(anyio.RunFinishedError):
            anyio.from_thread.run_sync(gone.set, token=token)

    async with anyio.create_task_group() as group:
        task_status.started(group)
        unsubscribe = None if stop is None else stop.on_cancel(wake)
        try:
            await gone.wait()
        finally:
            if unsubscribe is not None:
                unsubscribe()
        group.cancel_scope.cancel()
    if stop is not None and stop.is_cancelled():
        exit_at_once(STOPPED)
