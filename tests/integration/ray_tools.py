"""Tools for the Ray runner's tests and bench, found by Ray workers by reference (beside
`tests.remote_tools`, which ProcessRemote's tests share)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from toolfx.core.runtime import Cancelled, RemotePlacement
from toolfx.core.tools import ToolRunContext, tool
from toolfx.interpreters.remote.ray import start_here

__all__ = ["BIG_CHARS", "ROOT", "big", "big_text", "listening", "local_cluster", "nap", "noop"]

_HERE = "tests.integration.ray_tools"

ROOT = str(Path(__file__).resolve().parents[2])
"""The repository, on the Ray workers' path so that they import the tools by reference."""


@contextlib.contextmanager
def local_cluster(cpus: int, **system_config: object) -> Iterator[None]:
    """A Ray cluster of one node on this machine for the block (`start_here`: loopback only,
    no usage statistics), whose workers import this repository's modules (`system_config`:
    Ray's `_system_config`)."""
    import ray

    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    start_here(
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
        _system_config=system_config or None,
    )
    try:
        yield
    finally:
        ray.shutdown()


BIG_CHARS = 4 * 1024 * 1024
"""The length of `big`'s text: beyond what Ray passes inline, so it crosses the object store."""


def big_text(seed: str) -> str:
    """`BIG_CHARS` characters that depend on `seed` all along (a cut or a mix-up shows)."""
    block = hashlib.sha256(seed.encode()).hexdigest()
    return (block * (BIG_CHARS // len(block) + 1))[:BIG_CHARS]


@tool(remote=RemotePlacement(reference=f"{_HERE}:big"))
def big(seed: str) -> str:
    """`big_text(seed)`: a result of a few megabytes."""
    return big_text(seed)


@tool(remote=RemotePlacement(reference=f"{_HERE}:noop", cpus=0.01), parallel_safe=True)
def noop(n: int) -> int:
    """`n` back: a body that does nothing (the remote path's own cost)."""
    return n


@tool(
    remote=RemotePlacement(reference=f"{_HERE}:nap", cpus=0.01), parallel_safe=True, blocking=True
)
def nap(n: int) -> int:
    """Sleeps 100 ms (blocking: on a thread of its own when run locally), then gives `n` back;
    it reserves a hundredth of a CPU, so that Ray runs a hundred at once."""
    time.sleep(0.1)
    return n


@tool(remote=RemotePlacement(reference=f"{_HERE}:listening", kill_grace=60.0), timeout=600.0)
async def listening(marker: str, ctx: ToolRunContext) -> str:
    """Marks its pid, sleeps on its signal, and when set writes the reason it was given to
    `marker` + ".reason" before stopping."""
    Path(marker + ".tmp").write_text(str(os.getpid()), encoding="utf-8")
    os.replace(marker + ".tmp", marker)
    try:
        await ctx.runtime.sleep(600, ctx.signal)
    except Cancelled as cancelled:
        Path(marker + ".reason").write_text(cancelled.reason or "", encoding="utf-8")
        raise
    return "slept"
