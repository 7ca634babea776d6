"""toolfx interpreters: runners that perform pipeline descriptions over a Runtime."""

from toolfx.interpreters.anyio_runtime import (
    AnyioApprovals,
    AnyioRuntime,
    run_anyio,
    run_anyio_async,
)
from toolfx.interpreters.sync import ForeignAwaitError, SyncRuntime, run_sync

__all__ = [
    "AnyioApprovals",
    "AnyioRuntime",
    "ForeignAwaitError",
    "SyncRuntime",
    "run_anyio",
    "run_anyio_async",
    "run_sync",
]
