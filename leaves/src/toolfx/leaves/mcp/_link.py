"""One live connection to an MCP server, run by a task: connect, serve until closed, list tools.

`serve_link` is started with `TaskGroup.start`: it connects (within the connect timeout) and
hands back a `Link`, or raises `McpServerError` saying why it could not. It then serves until
`Link.close()`, turning each `tools/list_changed` notification into a call of `on_tools_changed`
(notifications that arrive during one call are folded into the next). On a 2026-07-28 connection
it opens a `subscriptions/listen` stream, without which such a server sends no notifications.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, final

import anyio
import anyio.abc
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp import Client, MCPError, StdioServerParameters
from mcp.client import IncomingMessage, Transport
from mcp.client.session import MessageHandlerFnT
from mcp.client.subscriptions import SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from toolfx.leaves.mcp._asks import CallsInFlight, elicitation_handler

__all__ = ["Link", "LinkSettings", "McpServerError", "list_tools", "serve_link"]

MAX_LIST_PAGES: Final = 100
"""How many pages of `tools/list` are read before the listing is refused as endless."""

EXPECTED_ERRORS: Final = (
    OSError,
    MCPError,
    ValidationError,
    SubscriptionLost,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)
"""What the SDK raises for a server that cannot be started or reached, or breaks the protocol."""

_CLIENT_INFO: Final = types.Implementation(name="toolfx", version="0.1.0")

_log = logging.getLogger("toolfx.mcp")


class McpServerError(Exception):
    """An MCP server that could not be started, reached or listed: which one, and why."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"MCP server '{server}' {reason}")
        self.server = server
        self.reason = reason


@final
@dataclass(frozen=True, slots=True)
class LinkSettings:
    """How to reach a server: its target, its namespace, the connect timeout and the SDK mode."""

    target: StdioServerParameters | str | Callable[[], Transport]
    namespace: str
    connect_timeout: float
    mode: str


@final
class Link:
    """A live connection: its client, its calls in flight, its event loop, and the events that
    close it and tell it has closed."""

    __slots__ = ("calls", "client", "closing", "finished", "loop")

    def __init__(self, client: Client, calls: CallsInFlight) -> None:
        self.client: Client = client
        self.calls: CallsInFlight = calls
        self.loop: anyio.lowlevel.EventLoopToken = anyio.lowlevel.current_token()
        self.closing: anyio.Event = anyio.Event()
        self.finished: anyio.Event = anyio.Event()

    def waker(self, wake: Callable[[], None]) -> Callable[[], None]:
        """A signal watcher that runs `wake` (which must not raise) in the connection's loop:
        at once when called there, else scheduled into it without waiting (a no-op once the
        loop has finished)."""
        loop = self.loop

        def watcher() -> None:
            try:
                here: anyio.lowlevel.EventLoopToken | None = anyio.lowlevel.current_token()
            except anyio.NoEventLoopError:
                here = None
            if here == loop:
                wake()
                return
            try:
                loop.backend_class.run_sync_soon(wake, (), loop.native_token)
            except anyio.RunFinishedError:
                return

        return watcher

    async def close(self) -> None:
        """Close the connection (the server process, for stdio) and wait until it is closed."""
        self.closing.set()
        await self.finished.wait()


async def serve_link(
    settings: LinkSettings,
    on_tools_changed: Callable[[], Awaitable[None]],
    *,
    task_status: anyio.abc.TaskStatus[Link],
) -> None:
    """Connect, hand the `Link` to the starter, and serve until it is closed."""
    notify, changes = anyio.create_memory_object_stream[None](1)
    target = settings.target
    calls = CallsInFlight()
    client = Client(
        target if isinstance(target, StdioServerParameters | str) else target(),
        mode=settings.mode,
        cache=None,  # a listing must always ask the server
        message_handler=_tools_changed_handler(notify),
        client_info=_CLIENT_INFO,
        elicitation_callback=elicitation_handler(calls, settings.namespace),
    )
    link = Link(client, calls)
    started = False
    try:
        with notify, changes, anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + settings.connect_timeout
            async with client:
                scope.deadline = math.inf
                async with anyio.create_task_group() as tasks:
                    if _needs_listen(client):
                        tasks.start_soon(_listen, client, settings.namespace)
                    tasks.start_soon(_follow, changes, on_tools_changed)
                    started = True
                    task_status.started(link)
                    await link.closing.wait()
                    tasks.cancel_scope.cancel()
    except Exception as error:
        if not _expected(error):
            raise
        if not started:
            reason = f"could not connect: {_describe(error)}"
            raise McpServerError(settings.namespace, reason) from error
        _log.warning(
            "MCP server %r: the connection broke: %s", settings.namespace, _describe(error)
        )
    finally:
        link.finished.set()
    if not started:
        raise McpServerError(
            settings.namespace, f"did not finish connecting within {settings.connect_timeout}s"
        )


async def list_tools(link: Link | None, server: str, timeout: float) -> list[types.Tool]:
    """Every tool the server lists now (all pages), within `timeout` seconds."""
    if link is None:
        raise McpServerError(server, "is not connected")
    tools: list[types.Tool] = []
    cursor: str | None = None
    try:
        with anyio.fail_after(timeout):
            for _ in range(MAX_LIST_PAGES):
                params = types.PaginatedRequestParams(cursor=cursor)
                page = await link.client.session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    return tools
    except TimeoutError:
        raise McpServerError(server, f"did not list its tools within {timeout}s") from None
    except Exception as error:
        if not _expected(error):
            raise
        raise McpServerError(server, f"could not list its tools: {_describe(error)}") from error
    raise McpServerError(server, f"lists more than {MAX_LIST_PAGES} pages of tools")


def _tools_changed_handler(notify: MemoryObjectSendStream[None]) -> MessageHandlerFnT:
    async def handle(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            with contextlib.suppress(anyio.WouldBlock):  # a pending refresh covers this one
                notify.send_nowait(None)
        await anyio.lowlevel.checkpoint()

    return handle


async def _follow(
    changes: anyio.abc.ObjectReceiveStream[None], on_tools_changed: Callable[[], Awaitable[None]]
) -> None:
    async for _ in changes:
        await on_tools_changed()


def _needs_listen(client: Client) -> bool:
    tools = client.server_capabilities.tools
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    return modern and tools is not None and tools.list_changed is True


async def _listen(client: Client, server: str) -> None:
    try:
        async with client.listen(tools_list_changed=True) as subscription:
            async for _ in subscription:
                pass  # each change reaches the message handler too, which reacts to it
    except Exception as error:
        if not _expected(error):
            raise
        _log.info("MCP server %r: change notifications stopped: %s", server, _describe(error))


def _expected(error: BaseException) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return all(_expected(inner) for inner in error.exceptions)
    return isinstance(error, EXPECTED_ERRORS)


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
