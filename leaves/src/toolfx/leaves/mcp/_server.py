"""`McpServer`: a connection to one MCP server, whose tools it keeps registered in a Location.

The connection lives in a task of the `McpServer`'s own task group, so it needs the event loop
that entered `async with McpServer...` for its whole life; its tools run under the anyio
interpreter (asyncio or trio) on that same loop, and fail with a clear message anywhere else
(the sync interpreter, another loop). When the server says its tools changed, they are listed
again and the server's registrations are swapped in one Location change. When the server dies,
its calls fail at once with a typed failure; `reconnect()` starts it again and registers its
tools anew. Skipped and renamed tools are logged (logger `toolfx.mcp`) and returned in reports.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self, final

import anyio
import anyio.abc
import anyio.lowlevel
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from returns.result import Failure

from toolfx.core.json import FrozenJson
from toolfx.core.jsonschema import CompiledSchema
from toolfx.core.registry import GLOBAL, Disposer, Location, RegistryError, ScopeKey
from toolfx.core.tools import ErrorCode, ToolFailure, ToolRunContext
from toolfx.leaves.mcp._calls import call_tool
from toolfx.leaves.mcp._link import Link, LinkSettings, McpServerError, list_tools, serve_link
from toolfx.leaves.mcp._names import check_namespace
from toolfx.leaves.mcp._results import McpOutcome
from toolfx.leaves.mcp._tools import McpBody, McpToolsReport, plan_tools

__all__ = ["McpServer", "McpTarget"]

McpTarget = StdioServerParameters | str | Callable[[], Transport]
"""What to connect to: a command to run (stdio), a streamable-HTTP URL, or a transport factory."""

_log = logging.getLogger("toolfx.mcp")


@final
@dataclass(frozen=True, slots=True)
class _Session:
    """What lives from `__aenter__` to `__aexit__`: the task group, its lock, its event loop."""

    group: anyio.abc.TaskGroup
    lock: anyio.Lock
    loop: anyio.lowlevel.EventLoopToken


@final
@dataclass(frozen=True, slots=True)
class _Registration:
    """Where the server's tools are registered, the disposer that removes them, the report."""

    location: Location
    scope: ScopeKey | None
    disposer: Disposer
    report: McpToolsReport


@final
class McpServer:
    """One MCP server: its connection, and its tools registered under its namespace.

    Use it as `async with McpServer.stdio(...) as server: await server.register(location)`;
    leaving the block removes its tools and closes the connection. `timeout` (seconds) is each
    call's timeout, and bounds listing the tools; `connect_timeout` bounds connecting. `mode`
    is the SDK's protocol negotiation (`"auto"`, `"legacy"` or a protocol version).
    """

    __slots__ = ("_link", "_registration", "_session", "_settings", "_timeout")

    def __init__(
        self,
        target: McpTarget,
        *,
        namespace: str,
        timeout: float = 30.0,
        connect_timeout: float = 30.0,
        mode: str = "auto",
    ) -> None:
        check_namespace(namespace)
        for what, seconds in (("timeout", timeout), ("connect_timeout", connect_timeout)):
            if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0):
                raise ValueError(f"{what} must be a positive number of seconds, not {seconds!r}")
        self._settings = LinkSettings(target, namespace, connect_timeout, mode)
        self._timeout = timeout
        self._session: _Session | None = None
        self._link: Link | None = None
        self._registration: _Registration | None = None

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        namespace: str,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        timeout: float = 30.0,
        connect_timeout: float = 30.0,
        mode: str = "auto",
    ) -> McpServer:
        """A server run as `command args...`, spoken to over its stdin and stdout."""
        parameters = StdioServerParameters(
            command=command, args=list(args), env=None if env is None else dict(env), cwd=cwd
        )
        return cls(
            parameters,
            namespace=namespace,
            timeout=timeout,
            connect_timeout=connect_timeout,
            mode=mode,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        namespace: str,
        timeout: float = 30.0,
        connect_timeout: float = 30.0,
        mode: str = "auto",
    ) -> McpServer:
        """A server at a streamable-HTTP endpoint (`http://host:port/mcp`)."""
        return cls(
            url, namespace=namespace, timeout=timeout, connect_timeout=connect_timeout, mode=mode
        )

    @property
    def namespace(self) -> str:
        """The namespace of the server's tools: their model-facing names are `<namespace>_...`."""
        return self._settings.namespace

    @property
    def timeout(self) -> float:
        """Each call's timeout in seconds (also the bound on listing the tools)."""
        return self._timeout

    @property
    def client(self) -> Client | None:
        """The SDK client of the live connection (None when not connected), for what toolfx
        does not wrap; calls made through it bypass the pipeline."""
        return None if self._link is None else self._link.client

    @property
    def report(self) -> McpToolsReport | None:
        """The report of the current registration, or None before `register`."""
        return None if self._registration is None else self._registration.report

    async def __aenter__(self) -> Self:
        if self._session is not None:
            raise RuntimeError(f"MCP server '{self.namespace}' is already entered")
        group = anyio.create_task_group()
        await group.__aenter__()
        self._session = _Session(group, anyio.Lock(), anyio.lowlevel.current_token())
        try:
            self._link = await group.start(serve_link, self._settings, self._tools_changed)
        except BaseException:
            self._session = None
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        session = self._entered()
        if self._registration is not None:
            self._registration.disposer()
            self._registration = None
        link, self._link, self._session = self._link, None, None
        if link is not None:
            link.closing.set()
        return await session.group.__aexit__(exc_type, exc, traceback)

    async def register(self, location: Location, scope: ScopeKey | None = GLOBAL) -> McpToolsReport:
        """List the server's tools and register them in `location` (once per server)."""
        async with self._entered().lock:
            if self._registration is not None:
                raise RuntimeError(f"MCP server '{self.namespace}' is already registered")
            location.catalog(scope)  # an unknown scope is refused before anything is listed
            return await self._swap(location, scope, None)

    async def refresh(self) -> McpToolsReport:
        """List the tools again and swap the registrations for them in one change."""
        async with self._entered().lock:
            registration = self._registration
            if registration is None:
                raise RuntimeError(f"MCP server '{self.namespace}' is not registered")
            return await self._swap(registration.location, registration.scope, registration)

    async def reconnect(self) -> McpToolsReport | None:
        """Close the connection, open a new one and, if registered, register the tools anew."""
        session = self._entered()
        async with session.lock:
            link, self._link = self._link, None
            if link is not None:
                await link.close()
            self._link = await session.group.start(serve_link, self._settings, self._tools_changed)
            registration = self._registration
            if registration is None:
                return None
            return await self._swap(registration.location, registration.scope, registration)

    # Internals ----------------------------------------------------------------------------------

    def _entered(self) -> _Session:
        if self._session is None:
            raise RuntimeError(f"use MCP server '{self.namespace}' inside `async with` first")
        return self._session

    async def _swap(
        self, location: Location, scope: ScopeKey | None, previous: _Registration | None
    ) -> McpToolsReport:
        listed = await list_tools(self._link, self.namespace, self.timeout)
        plan = plan_tools(
            listed,
            namespace=self.namespace,
            timeout=self.timeout,
            body=self._body,
            registry=location.registry,
            scope=scope,
            owned=frozenset() if previous is None else frozenset(previous.report.names),
        )
        replacing = None if previous is None else previous.disposer
        disposer = location.register_all(plan.definitions, scope, replacing=replacing)
        self._registration = _Registration(location, scope, disposer, plan.report)
        known = () if previous is None else previous.report.notices
        for notice in plan.report.notices:
            if notice not in known:  # each notice is logged once, not at every refresh
                level = logging.WARNING if notice.kind == "skipped" else logging.INFO
                _log.log(level, "%s", notice)
        return plan.report

    async def _tools_changed(self) -> None:
        session = self._session
        if session is None:  # leaving `async with`: nothing to keep up to date
            return
        async with session.lock:
            registration = self._registration
            if registration is None:
                return
            try:
                await self._swap(registration.location, registration.scope, registration)
            except (McpServerError, RegistryError) as error:
                _log.warning("%s (its tools changed; the old ones stay registered)", error)

    def _body(self, tool: str, output: CompiledSchema | None) -> McpBody:
        async def run(args: FrozenJson, context: ToolRunContext) -> McpOutcome:
            link = self._usable_link(context.name)
            if isinstance(link, ToolFailure):
                return Failure(link)
            return await call_tool(link, tool, args, context, server=self.namespace, output=output)

        return run

    def _usable_link(self, name: str) -> Link | ToolFailure:
        session, link = self._session, self._link
        if session is None or link is None:
            return ToolFailure.of(
                ErrorCode.TOOL_ERROR,
                f"MCP server '{self.namespace}' is not connected: reconnect it to use `{name}`",
            )
        try:
            loop = anyio.lowlevel.current_token()
        except anyio.NoEventLoopError:
            loop = None
        if loop != session.loop:
            return ToolFailure.of(
                ErrorCode.TOOL_ERROR,
                f"`{name}` needs the anyio interpreter (asyncio or trio) running on the event "
                f"loop that holds the connection to MCP server '{self.namespace}'",
            )
        return link
