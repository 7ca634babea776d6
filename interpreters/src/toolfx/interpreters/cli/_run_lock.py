"""One run at a time per journal: `toolfx run --journal FILE` holds a lock on `FILE-run.lock`.

A journal decides each call from the records it holds when the batch starts, so two runs of one
session over one journal at the same time would both find a call new and both run it (a `bash`
command twice). The lock is `flock` on a file of its own beside the journal (never on the journal:
closing any descriptor of a file drops the process's `fcntl` locks on it, SQLite's among them, and
on some systems `flock` and SQLite's `fcntl` locks on one file exclude each other, which would
shut `toolfx approve` out). The OS drops the lock when the process dies, `kill -9` included, so a
crashed run never leaves it held. `toolfx approve` takes no lock: it may answer while a run goes on.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

__all__ = ["JournalInUseError", "exclusive_run", "lock_path"]


class JournalInUseError(Exception):
    """Another run holds the journal, or its lock file cannot be made or locked."""


def lock_path(journal: str) -> str:
    """The lock file of the journal at `journal`."""
    return f"{journal}-run.lock"


@contextlib.contextmanager
def exclusive_run(journal: str) -> Iterator[None]:
    """Hold the journal's run lock while the block runs; `JournalInUseError` if it cannot."""
    path = lock_path(journal)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise JournalInUseError(f"cannot make the journal's lock file {path}: {error}") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JournalInUseError(
                f"another run holds the journal {journal} (its lock file {path} is locked):"
                " two runs at once would both run the calls neither has settled yet"
            ) from None
        except OSError as error:
            raise JournalInUseError(
                f"cannot lock the journal's lock file {path}: {error}"
            ) from None
        yield
    finally:
        os.close(descriptor)  # drops the lock
