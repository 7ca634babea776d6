"""What the CLI tests share: running `main` in-process, writing sessions, the installed script."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect
import pytest
from typing_extensions import Buffer

from tests.support import SAFETY_NET
from toolfx.interpreters.cli import main

__all__ = [
    "TOOLFX",
    "FillingFile",
    "Ran",
    "ScriptedKeyboard",
    "spawn_toolfx",
    "toolfx",
    "write_session",
]

TOOLFX = str(Path(sys.executable).parent / "toolfx")
"""The installed `toolfx` console script of this environment."""


@dataclass(frozen=True)
class Ran:
    """One in-process run of the command line: its exit code and what it printed."""

    code: int
    out: str
    err: str


def toolfx(capsys: pytest.CaptureFixture[str], *argv: str) -> Ran:
    """Run `toolfx ARGV` in-process and capture its output."""
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return Ran(code, captured.out, captured.err)


def write_session(path: Path, *turns: Any) -> str:
    """A session file with one JSON line per turn; its path as a string."""
    path.write_text("".join(json.dumps(turn) + "\n" for turn in turns), encoding="utf-8")
    return str(path)


def spawn_toolfx(*argv: str, width: int = 200) -> tuple[pexpect.spawn, io.StringIO]:
    """Start `toolfx ARGV` in a pseudo-terminal `width` columns wide; it and its transcript."""
    child = pexpect.spawn(
        TOOLFX,
        list(argv),
        timeout=SAFETY_NET,  # how long an expect waits: only against a hang
        encoding="utf-8",
        dimensions=(50, width),
        env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},  # the pty's
    )
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


class FillingFile(io.FileIO):
    """A real file on a disk that is full after `room` bytes: it takes what fits, then ENOSPC."""

    def __init__(self, path: Path, room: int) -> None:
        super().__init__(path, "wb")
        self.room = room

    def write(self, data: Buffer, /) -> int:
        view = memoryview(data)
        if self.room == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = super().write(view[: self.room])
        self.room -= taken
        return taken


@dataclass
class ScriptedKeyboard:
    """A keyboard (`toolfx.interpreters.cli._tty.Keyboard`) typing `typed` in order: keys and
    lines (None: the end of input); `shown` says what had been shown each time keys were read
    one at a time, and `reading` whether they are now."""

    typed: list[str | None]
    shown: Callable[[], str] = lambda: ""
    entered: list[str] = field(default_factory=list)
    reading: bool = False
    discarded: int = 0

    @contextlib.contextmanager
    def keys(self) -> Iterator[None]:
        self.entered.append(self.shown())
        self.reading = True
        try:
            yield
        finally:
            self.reading = False

    def key(self) -> str:
        assert self.reading, "a key is read only inside keys()"
        typed = self.typed.pop(0)
        assert typed is not None
        return typed

    def discard(self) -> None:
        assert self.reading, "typed keys are dropped only inside keys()"
        self.discarded += 1

    def line(self) -> str | None:
        assert self.reading, "a line is read only inside keys()"
        return self.typed.pop(0)
