"""toolfx interpreters: runners that perform pipeline descriptions over a Runtime."""

from toolfx.interpreters.anyio_processes import AnyioProcessRunner
from toolfx.interpreters.anyio_runtime import (
    AnyioApprovals,
    AnyioInterpreter,
    AnyioRuntime,
    run_anyio,
    run_anyio_async,
)
from toolfx.interpreters.deterministic import (
    CancelAt,
    Deadlock,
    DeterministicForeignAwaitError,
    DeterministicInterpreter,
    DeterministicRuntime,
    Fault,
    HangAt,
    RaiseAt,
    RaiseInto,
    TraceEvent,
)
from toolfx.interpreters.folder_spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.foreign import ForeignAwaitError
from toolfx.interpreters.local_files import AnyioFileSystem, LocalFileSystem
from toolfx.interpreters.memory_files import MemoryFileSystem
from toolfx.interpreters.memory_spills import MemorySpills
from toolfx.interpreters.scripted_processes import (
    ProcessMatcher,
    ScriptedProcess,
    ScriptedProcesses,
)
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime, run_sync
from toolfx.interpreters.sync_processes import SyncProcessRunner

__all__ = [
    "AnyioApprovals",
    "AnyioFileSystem",
    "AnyioFolderSpills",
    "AnyioInterpreter",
    "AnyioProcessRunner",
    "AnyioRuntime",
    "CancelAt",
    "Deadlock",
    "DeterministicForeignAwaitError",
    "DeterministicInterpreter",
    "DeterministicRuntime",
    "Fault",
    "FolderSpills",
    "ForeignAwaitError",
    "HangAt",
    "LocalFileSystem",
    "MemoryFileSystem",
    "MemorySpills",
    "ProcessMatcher",
    "RaiseAt",
    "RaiseInto",
    "ScriptedProcess",
    "ScriptedProcesses",
    "SyncInterpreter",
    "SyncProcessRunner",
    "SyncRuntime",
    "TraceEvent",
    "run_anyio",
    "run_anyio_async",
    "run_sync",
]
