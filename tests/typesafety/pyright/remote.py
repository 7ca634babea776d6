"""Remote bodies under pyright strict: placements, runners and the scripted remote (as mypy)."""

from typing import assert_type

from toolfx.core import RemotePlacement, RemoteRunner, ToolArguments, ToolDefinition, tool
from toolfx.interpreters.remote import ProcessRemote, ProvidedTools
from toolfx.interpreters.sync import SyncRuntime
from toolfx.interpreters.testing import DeterministicInterpreter, ScriptedRemote, WorkerCrash


@tool(remote=RemotePlacement(cpus=0.5, reference="pkg.mod:size"))
def size(path: str) -> int:
    """The length of a path."""
    return len(path)


assert_type(size, ToolDefinition[ToolArguments, int])
assert_type(size.remote, RemotePlacement | None)
runner: RemoteRunner = ProcessRemote(ProvidedTools.of("/work", None, "auto"), workers=2)
SyncRuntime(remote=runner)
DeterministicInterpreter(remote=ScriptedRemote(crashes={"c": WorkerCrash("before")}))
assert_type(SyncRuntime().remote, RemoteRunner | None)
RemotePlacement(cpus="2")  # pyright: ignore[reportArgumentType]
SyncRuntime(remote=object())  # pyright: ignore[reportArgumentType]
WorkerCrash("during")  # pyright: ignore[reportArgumentType]
