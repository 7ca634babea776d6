"""toolfx interpreters: runners that perform pipeline descriptions over a Runtime."""

from toolfx.interpreters.anyio_runtime import (
    AnyioApprovals,
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
    TraceEvent,
)
from toolfx.interpreters.foreign import ForeignAwaitError
from toolfx.interpreters.sync import SyncRuntime, run_sync

__all__ = [
    "AnyioApprovals",
    "AnyioRuntime",
    "CancelAt",
    "Deadlock",
    "DeterministicForeignAwaitError",
    "DeterministicInterpreter",
    "DeterministicRuntime",
    "Fault",
    "ForeignAwaitError",
    "HangAt",
    "RaiseAt",
    "SyncRuntime",
    "TraceEvent",
    "run_anyio",
    "run_anyio_async",
    "run_sync",
]
