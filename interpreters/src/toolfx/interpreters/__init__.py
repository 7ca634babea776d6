"""toolfx interpreters: runners that perform pipeline descriptions over a Runtime."""

from toolfx.interpreters.sync import ForeignAwaitError, SyncRuntime, run_sync

__all__ = ["ForeignAwaitError", "SyncRuntime", "run_sync"]
