"""Tools whose bodies run in other processes (ProcessRemote, Ray), found there by reference.

Each body that lives long writes its pid (and the pids it starts) to the file its arguments
name, so a test can wait for it to be running and see that it is gone afterwards."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from returns.result import Failure, Result

from toolfx.core.runtime import Cancelled, RemotePlacement
from toolfx.core.tools import ContextMessage, ToolFailure, ToolRunContext, text, tool

__all__ = ["broken", "failing", "patient", "stubborn", "where"]

_HERE = "tests.remote_tools"


def _mark(marker: str, *pids: int) -> None:
    Path(marker + ".tmp").write_text(" ".join(map(str, pids)), encoding="utf-8")
    os.replace(marker + ".tmp", marker)


@tool(remote=RemotePlacement(reference=f"{_HERE}:where"), parallel_safe=True)
def where(n: int, ctx: ToolRunContext) -> list[int]:
    """The pid the body ran in, and `n`; it defers a context and concludes the turn."""
    ctx.defer_context(ContextMessage(text(f"ran in {os.getpid()}"), "where"))
    ctx.conclude_turn()
    return [os.getpid(), n]


@tool(remote=RemotePlacement(reference=f"{_HERE}:failing"))
def failing(reason: str) -> Result[int, ToolFailure]:
    """A typed failure with `reason`."""
    return Failure(ToolFailure(reason))


@tool(remote=RemotePlacement(reference=f"{_HERE}:broken"))
def broken(reason: str) -> int:
    """A defect: raises with `reason`."""
    raise ValueError(reason)


@tool(remote=RemotePlacement(reference=f"{_HERE}:stubborn", kill_grace=0.2))
def stubborn(marker: str) -> str:
    """Starts a child that sleeps, marks both pids, and sleeps without looking at its signal."""
    child = subprocess.Popen(["sleep", "600"])
    _mark(marker, os.getpid(), child.pid)
    time.sleep(600)
    return "woke"


@tool(remote=RemotePlacement(reference=f"{_HERE}:patient", kill_grace=30.0), timeout=600.0)
async def patient(marker: str, ctx: ToolRunContext) -> str:
    """Marks its pid and sleeps on its signal: stops on its own, with a context, when set."""
    _mark(marker, os.getpid())
    try:
        await ctx.runtime.sleep(600, ctx.signal)
    except Cancelled as cancelled:
        ctx.defer_context(ContextMessage(text(f"stopped: {cancelled.reason}"), "patient"))
        raise
    return "slept"
