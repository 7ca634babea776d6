"""toolfx interpreters: runners that perform pipeline descriptions over a Runtime."""

from toolfx.core.public import publish
from toolfx.interpreters._foreign import ForeignAwaitError
from toolfx.interpreters._os.files import AnyioFileSystem, LocalFileSystem
from toolfx.interpreters._os.spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters._os.sync_processes import SyncProcessRunner
from toolfx.interpreters.anyio import (
    AnyioApprovals,
    AnyioInterpreter,
    AnyioProcessRunner,
    AnyioRuntime,
    run_anyio,
    run_anyio_async,
)
from toolfx.interpreters.codemode import MontyEngine
from toolfx.interpreters.journal import (
    CorruptRecordError,
    Durability,
    JournalFileError,
    NotAJournalError,
    SqliteJournal,
)
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime, run_sync
from toolfx.interpreters.testing import (
    CancelAt,
    CrashAt,
    CrashAtAppend,
    Crashed,
    Deadlock,
    DeterministicForeignAwaitError,
    DeterministicInterpreter,
    DeterministicRuntime,
    Fault,
    HangAt,
    MemoryFileSystem,
    MemoryJournal,
    MemorySpills,
    Mortal,
    Pause,
    ProcessMatcher,
    RaiseAt,
    RaiseInto,
    Rejected,
    Script,
    ScriptedCode,
    ScriptedProcess,
    ScriptedProcesses,
    ScriptedSession,
    TraceEvent,
)

__all__ = [
    "AnyioApprovals",
    "AnyioFileSystem",
    "AnyioFolderSpills",
    "AnyioInterpreter",
    "AnyioProcessRunner",
    "AnyioRuntime",
    "CancelAt",
    "CorruptRecordError",
    "CrashAt",
    "CrashAtAppend",
    "Crashed",
    "Deadlock",
    "DeterministicForeignAwaitError",
    "DeterministicInterpreter",
    "DeterministicRuntime",
    "Durability",
    "Fault",
    "FolderSpills",
    "ForeignAwaitError",
    "HangAt",
    "JournalFileError",
    "LocalFileSystem",
    "MemoryFileSystem",
    "MemoryJournal",
    "MemorySpills",
    "MontyEngine",
    "Mortal",
    "NotAJournalError",
    "Pause",
    "ProcessMatcher",
    "RaiseAt",
    "RaiseInto",
    "Rejected",
    "Script",
    "ScriptedCode",
    "ScriptedProcess",
    "ScriptedProcesses",
    "ScriptedSession",
    "SqliteJournal",
    "SyncInterpreter",
    "SyncProcessRunner",
    "SyncRuntime",
    "TraceEvent",
    "run_anyio",
    "run_anyio_async",
    "run_sync",
]

publish(__name__, __all__, globals())
