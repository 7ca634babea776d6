"""What the real-process CLI tests share: FIFOs to meet a running command at, and the processes
below toolfx (to check that none outlives it)."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

__all__ = ["descendants", "fifos", "met"]


def fifos(folder: Path, *names: str) -> tuple[Path, ...]:
    """FIFOs made in `folder` before toolfx starts (a command writing into one first would
    otherwise make a plain file)."""
    made = tuple(folder / name for name in names)
    for fifo in made:
        os.mkfifo(fifo)
    return made


def met(fifo: Path, pid: int) -> bytes:
    """What a command writes into the FIFO `fifo`, once it has written it: no polling, no
    clock. If the process `pid` (toolfx) ends first, a watcher opens the FIFO itself, so the
    read ends with nothing (and the test fails saying so)."""

    def unblock() -> None:
        with contextlib.suppress(ChildProcessError):  # reaped already: it has ended
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with contextlib.suppress(FileNotFoundError):  # the line came: nothing to free
            os.close(os.open(fifo, os.O_WRONLY))

    threading.Thread(target=unblock, daemon=True).start()
    with open(fifo, "rb") as reader:
        line = reader.read()
    fifo.unlink()
    assert line, f"toolfx ended before it wrote into {fifo.name}"
    return line


def descendants(pid: int) -> set[int]:
    """The live processes below `pid` (its children, theirs, ...)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended while listed
        parents[int(stat.parent.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found
