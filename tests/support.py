"""Helpers the interpreter tests share: a sample approval request, a cancel from a thread,
whether a process is still alive and which run below one, the checks of `Runtime.report`, and
the smallest tool bodies.

No helper bounds a duration: a wait ends when what it waits for happens, and `SAFETY_NET` only
turns a hang into a failure."""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

import pytest

from toolfx.core.runtime import (
    ApprovalRequest,
    CancelSignal,
    DefectReporter,
    FileStat,
    FileSystem,
    Runtime,
)
from toolfx.core.tools import ToolRunContext

__all__ = [
    "SAFETY_NET",
    "ForwardingFiles",
    "Pair",
    "add",
    "add_later",
    "alive",
    "approval_request",
    "assert_report_hands_over",
    "assert_report_logs",
    "cancel_when",
    "descendants",
    "gone_soon",
    "marked",
    "unmarked_soon",
]


class Pair(TypedDict):
    """The arguments of `add`: two integers."""

    a: int
    b: int


def add(args: Pair, ctx: ToolRunContext) -> int:
    """The smallest plain body: the sum of the pair."""
    return args["a"] + args["b"]


async def add_later(args: Pair, ctx: ToolRunContext) -> int:
    """`add` as a coroutine function (its value comes from awaiting it)."""
    return args["a"] + args["b"]


SAFETY_NET = 60.0
"""Seconds after which a wait for something that happens promptly is taken for a hang."""


def approval_request(call_id: str = "call-1", agent: str | None = None) -> ApprovalRequest:
    """An ask for a destructive shell command, the same in every interpreter's tests."""
    return ApprovalRequest(
        call_id=call_id,
        tool="bash",
        agent=agent,
        permission="bash",
        patterns=("rm *",),
        reason="deletes files",
        arguments=None,
    )


def cancel_when(signal: CancelSignal, ready: Callable[[], bool], reason: str) -> threading.Thread:
    """Set `signal` from another thread once `ready()` holds (or after `SAFETY_NET` seconds, so
    the test fails rather than hangs): a cancel that comes after what it must interrupt began,
    however slow the machine."""

    def wait_then_cancel() -> None:
        give_up = time.monotonic() + SAFETY_NET
        while not ready() and time.monotonic() < give_up:
            time.sleep(0.01)
        signal.cancel(reason)

    thread = threading.Thread(target=wait_then_cancel, daemon=True)
    thread.start()
    return thread


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def marked(marker: str) -> list[int]:
    """The live processes whose argv[0] is `marker`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().startswith(marker.encode() + b"\0"):
                found.append(int(cmdline.parent.name))
        except OSError:
            continue  # ended while listed
    return found


def descendants(root: int) -> set[int]:
    """The live processes below `root` (its children, theirs, and so on)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue  # ended while listed
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _exit_of(pid: int) -> None:
    """Wait for `pid` to exit, woken by its pidfd (no polling); `SAFETY_NET` only against a
    hang."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # gone already
    try:
        select.select([handle], [], [], SAFETY_NET)  # readable once the process has exited
    finally:
        os.close(handle)


def gone_soon(pid: int) -> bool:
    """Whether `pid` is dead, once it has exited (a hang ends after `SAFETY_NET`)."""
    _exit_of(pid)
    return not alive(pid)


def unmarked_soon(marker: str) -> bool:
    """Whether no process has `marker` as its argv[0] once every one found has exited (a
    process found in a later pass, a child forked meanwhile, is waited for too)."""
    for _ in range(_PASSES):
        found = marked(marker)
        if not found:
            return True
        for pid in found:
            _exit_of(pid)
    return not marked(marker)


_PASSES = 8
"""How many times `unmarked_soon` lists the marked processes and waits for them."""


def assert_report_hands_over(make: Callable[[DefectReporter], Runtime]) -> None:
    """`report` on the runtime `make` builds around an `on_defect` hands the defect to it."""
    defects: list[tuple[BaseException, str]] = []
    runtime = make(lambda error, where: defects.append((error, where)))
    failure = RuntimeError("observer broke")
    runtime.report(failure, "result observer")
    assert defects == [(failure, "result observer")]


def assert_report_logs(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    """`report` on a runtime with the default `on_defect` logs the defect on `toolfx`."""
    with caplog.at_level(logging.ERROR, logger="toolfx"):
        runtime.report(RuntimeError("observer broke"), "result observer")
    assert any(
        record.exc_info and "observer broke" in str(record.exc_info[1]) for record in caplog.records
    )
    assert "result observer" in caplog.text


class ForwardingFiles(FileSystem):
    """A file system that hands every operation to `files`: tests override the one they watch."""

    def __init__(self, files: FileSystem) -> None:
        self.files = files

    async def stat(
        self, path: str, *, within: str, follow_symlinks: bool = True, resolved: bool = False
    ) -> FileStat:
        """The wrapped `stat`."""
        return await self.files.stat(
            path, within=within, follow_symlinks=follow_symlinks, resolved=resolved
        )

    async def resolve(self, path: str) -> str:
        """The wrapped `resolve`."""
        return await self.files.resolve(path)

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        """The wrapped `read_bytes`."""
        return await self.files.read_bytes(
            path, within=within, offset=offset, limit=limit, resolved=resolved
        )

    async def write_bytes(
        self, path: str, data: bytes, *, within: str, resolved: bool = False
    ) -> None:
        """The wrapped `write_bytes`."""
        await self.files.write_bytes(path, data, within=within, resolved=resolved)

    async def list_dir(
        self, path: str, *, within: str, resolved: bool = False
    ) -> tuple[FileStat, ...]:
        """The wrapped `list_dir`."""
        return await self.files.list_dir(path, within=within, resolved=resolved)
