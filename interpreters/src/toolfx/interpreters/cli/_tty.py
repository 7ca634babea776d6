"""The controlling terminal, where asks are answered: opened read-write by its own name, so a
prompt reaches the person whatever stdin and stdout are (`toolfx run ... --json | jq`), read one
key at a time (no Enter, no echo) or one line with echo.

Without a controlling terminal (a service, a CI job, a process in a session of its own) there is
no one to ask: `open_terminal` says so with None.
"""

from __future__ import annotations

import contextlib
import os
import termios
from collections.abc import Iterator
from typing import Final, Protocol, TextIO, final

__all__ = [
    "END_OF_INPUT",
    "INTERRUPTED",
    "MAX_LINE_BYTES",
    "TERMINAL_PATH",
    "Keyboard",
    "Terminal",
    "open_terminal",
]

TERMINAL_PATH: Final = "/dev/tty"
"""The name of the process's controlling terminal."""

END_OF_INPUT: Final = ""
"""What `Keyboard.key` reads at the end of input (Ctrl-D, or the terminal hung up)."""

INTERRUPTED: Final = "\x03"
"""What `Keyboard.key` reads for the interrupt key (Ctrl-C): the reader passes it on (SIGINT)."""

MAX_LINE_BYTES: Final = 16 * 1024
"""The most bytes of one line `Keyboard.line` reads; the rest of a longer one is left unread."""

_LFLAG: Final = 3
_CC: Final = 6
_KEY_BYTES: Final = 64  # one key: a character, or the escape sequence of a special key
_COOKED: Final = termios.ICANON | termios.ECHO | termios.ISIG  # lines, echoed, keys signal
_DISABLED: Final = b"\x00"  # a special character turned off (_POSIX_VDISABLE)


class Keyboard(Protocol):
    """Where answers are typed: one key at a time inside `keys()`, or a line."""

    def keys(self) -> contextlib.AbstractContextManager[None]:
        """A context in which keys are read one at a time, unechoed; what was typed before it,
        or left unread in it, is dropped (a key pressed before a question answers nothing)."""
        ...

    def key(self) -> str:
        """The first character of the next key pressed (inside `keys()`): `END_OF_INPUT` at the
        end of input, `INTERRUPTED` for the interrupt key (read as a key, in any thread: the
        reader passes it on as SIGINT once the terminal is restored)."""
        ...

    def line(self) -> str | None:
        """The next line typed (echoed, editable as the terminal edits lines), without its end;
        None at the end of input."""
        ...


@final
class Terminal:
    """The controlling terminal, open read-write: `writer` to show, `keys`/`key`/`line` to read.

    The terminal's modes are restored after each read, also when it is interrupted.
    """

    __slots__ = ("_fd", "writer")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.writer: TextIO = open(  # noqa: SIM115 (closed by `close`)
            fd, "w", encoding="utf-8", errors="replace", closefd=False
        )
        """The terminal as a text stream (for a console)."""

    @property
    def columns(self) -> int | None:
        """The terminal's width (None if it cannot say)."""
        try:
            return os.get_terminal_size(self._fd).columns or None
        except OSError:
            return None

    @contextlib.contextmanager
    def keys(self) -> Iterator[None]:
        """Keys one at a time, without echo and with the interrupt key read as a key (so it is
        seen in any thread); what was typed before, or left after the last key read, is dropped."""
        with self._mode(_COOKED, on=False):
            yield

    def key(self) -> str:
        """The next key pressed; see `Keyboard.key`."""
        data = os.read(self._fd, _KEY_BYTES)
        chars = termios.tcgetattr(self._fd)[_CC]
        if chars[termios.VINTR] != _DISABLED and chars[termios.VINTR] in data:
            return INTERRUPTED
        if not data or data[:1] == chars[termios.VEOF]:
            return END_OF_INPUT
        return data.decode("utf-8", errors="replace")[0]

    def line(self) -> str | None:
        """The next line typed, echoed; see `Keyboard.line`."""
        read = bytearray()
        cooked = termios.tcgetattr(self._fd)[_LFLAG] & _COOKED == _COOKED
        with contextlib.nullcontext() if cooked else self._mode(_COOKED, on=True):
            while len(read) < MAX_LINE_BYTES and not read.endswith(b"\n"):
                data = os.read(self._fd, MAX_LINE_BYTES - len(read))
                if not data:
                    break
                read += data
        if not read:
            return None
        return read.decode("utf-8", errors="replace").removesuffix("\n")

    def close(self) -> None:
        """Close the terminal."""
        try:
            self.writer.close()
        finally:
            os.close(self._fd)

    @contextlib.contextmanager
    def _mode(self, flags: int, *, on: bool) -> Iterator[None]:
        """The terminal with the local `flags` turned on (lines) or off (keys: each read returns
        once a byte has come, and input not read is dropped, before and after); its modes
        restored after, however the block ends."""
        saved = termios.tcgetattr(self._fd)
        changed = termios.tcgetattr(self._fd)
        when = termios.TCSADRAIN
        if on:
            changed[_LFLAG] |= flags
        else:
            changed[_LFLAG] &= ~flags
            changed[_CC][termios.VMIN] = 1
            changed[_CC][termios.VTIME] = 0
            when = termios.TCSAFLUSH
        termios.tcsetattr(self._fd, when, changed)
        try:
            yield
        finally:
            termios.tcsetattr(self._fd, when, saved)


def open_terminal(path: str = TERMINAL_PATH) -> Terminal | None:
    """The controlling terminal (at `path`), or None when the process has none."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:  # ENXIO: no controlling terminal
        return None
    if not os.isatty(fd):
        os.close(fd)
        return None
    return Terminal(fd)
