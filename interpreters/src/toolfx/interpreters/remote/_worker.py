"""A worker's side of a remote body: find the tool the request names, and run its body.

A worker finds a tool either by the placement's reference (`package.module:attribute`, a
`ToolDefinition` the worker imports) or through the `toolfx.tools` providers over the shared
workspace the runner names (`ProvidedTools`), loaded once per process that calls `run_request`
(`ProcessRemote` and `RayRemote` start a child for each body, so for them once per call; a
long-lived worker of one's own loads them once). The body runs under the worker's sync
interpreter, on a signal of the worker's own that the runner sets when the driver's is. Nothing
on a worker asks anyone: an ask a body makes there is answered `unavailable` (the call fails
closed), so the driver's rules must allow what a remote body does.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

from toolfx.core.json import JsonValue
from toolfx.core.pipeline import remote_body
from toolfx.core.runtime import CancelSignal, RemoteRequest, SandboxMode
from toolfx.core.tools import (
    ErrorCode,
    ToolDefinition,
    ToolExecutionFailure,
    ToolExecutionResult,
    failed,
    printable,
)
from toolfx.interpreters.providers import ProviderError, load_catalog
from toolfx.interpreters.sync import SyncRuntime, run_sync

if TYPE_CHECKING:
    from toolfx.core.registry import Catalog

__all__ = ["ProvidedTools", "find_tool", "run_request"]


@final
@dataclass(frozen=True, slots=True)
class ProvidedTools:
    """The tools of the installed `toolfx.tools` providers over a workspace every worker
    reaches at the same absolute path (shared storage), under the same rules and sandbox."""

    root: str
    rules: str = "null"
    """The permission rules as JSON text (as the driver's providers were given them)."""
    sandbox: SandboxMode = "auto"

    @staticmethod
    def of(root: str, rules: JsonValue = None, sandbox: SandboxMode = "auto") -> ProvidedTools:
        """The providers' tools over `root` under `rules` (parsed JSON) and `sandbox`."""
        return ProvidedTools(root, json.dumps(rules, sort_keys=True), sandbox)


def find_tool(
    request: RemoteRequest, source: ProvidedTools | None
) -> ToolDefinition[Any, Any] | ToolExecutionFailure:
    """The definition the request's call runs here, or an UNKNOWN_TOOL failure saying why the
    worker has none (its reference does not import, or the providers have no such tool)."""
    reference = request.placement.reference
    if reference is not None:
        return _referenced(request.tool, reference)
    if source is None:
        return _unknown(
            f"`{request.tool}` names no reference and this remote runner was given no tools"
        )
    try:
        catalog = _provided(source)
    except ProviderError as error:
        return _unknown(f"the worker could not load its tools for `{request.tool}`: {error}")
    definition = catalog.get(request.tool)
    if definition is None:
        return _unknown(f"the worker's tool providers have no tool `{request.tool}`")
    return definition


def run_request(
    request: RemoteRequest, source: ProvidedTools | None, signal: CancelSignal
) -> ToolExecutionResult:
    """The result of `request`'s body run here on the sync interpreter, watching `signal`."""
    found = find_tool(request, source)
    if not isinstance(found, ToolDefinition):
        return found
    return run_sync(remote_body(found, request, signal), SyncRuntime())


@functools.cache
def _provided(source: ProvidedTools) -> Catalog:
    """The providers' catalog for `source`, loaded once in this process."""
    return load_catalog(source.root, json.loads(source.rules), source.sandbox, os.environ)


def _referenced(tool: str, reference: str) -> ToolDefinition[Any, Any] | ToolExecutionFailure:
    module_name, _, path = reference.partition(":")
    try:
        found: object = importlib.import_module(module_name)
        for part in path.split("."):
            found = getattr(found, part)
    except Exception as error:  # whatever importing it raised: the worker has no such tool
        return _unknown(f"the worker cannot import `{tool}` from {reference!r}: {error}")
    if not isinstance(found, ToolDefinition):
        return _unknown(
            f"{reference!r} is a {type(found).__name__} on the worker, not a ToolDefinition"
        )
    if found.name != tool:
        return _unknown(f"{reference!r} is the tool `{found.name}` on the worker, not `{tool}`")
    return found


def _unknown(message: str) -> ToolExecutionFailure:
    return failed(ErrorCode.UNKNOWN_TOOL, printable(message))
