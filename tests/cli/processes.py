"""What the real-process CLI tests share: FIFOs to meet a running command at."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

__all__ = ["fifos", "met"]


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
