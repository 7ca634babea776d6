"""The controlling terminal, where asks are answered: opened read-write by its own name, so a
prompt reaches the person whatever stdin and stdout are (`toolfx run ... --json | jq`), read one
key at a time (no Enter, no echo) or one line (echoed, with erase and kill).

A key is a read that holds one character and nothing else: a read of more (a paste, a special
key's escape sequence, a report the terminal sends when some program asked it for one) is
`NOT_ONE_KEY`, never its first or any later character, so pasted or reported text cannot answer.

While keys are read the terminal sends no signals: the interrupt key (Ctrl-C) is read like any
other key, so it is seen in whichever thread asks, and the reader passes it on as SIGINT once
the terminal is as it was. Without a controlling terminal (a service, a CI job, a process in a
session of its own) there is no one to ask: `open_terminal` says so with None.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import termios
from collections.abc import Iterator
from typing import Final, Literal, Protocol, TextIO, final

__all__ = [
    "END_OF_INPUT",
    "INTERRUPTED",
    "MAX_LINE_CHARS",
    "NOT_ONE_KEY",
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
"""What `Keyboard.key` and `Keyboard.line` read for the interrupt key (Ctrl-C): the reader
passes it on (SIGINT) once the terminal is restored."""

NOT_ONE_KEY: Final = "not one key"
"""What `Keyboard.key` reads when a read held more than one key (a paste, an escape sequence, a
terminal's report): no key at all."""

MAX_LINE_CHARS: Final = 4096
"""The most characters of one line `Terminal.line` takes; it ends the line there."""

_LFLAG: Final = 3
_CC: Final = 6
_READ_BYTES: Final = 4096  # at most one read's bytes: a key is one of them (UTF-8: up to 4)
_COOKED: Final = termios.ICANON | termios.ECHO | termios.ISIG  # lines, echoed, keys signal
_DISABLED: Final = b"\x00"  # a special character turned off (_POSIX_VDISABLE)
_ERASE: Final = frozenset({"\x7f", "\b"})
_ESCAPE: Final = "\x1b"


class Keyboard(Protocol):
    """Where answers are typed: inside `keys()`, one key at a time or a line."""

    def keys(self) -> contextlib.AbstractContextManager[None]:
        """A context in which keys are read one at a time, unechoed; what was typed before it,
        or left unread in it, is dropped (a key pressed before a question answers nothing)."""
        ...

    def key(self) -> str:
        """The next key pressed (inside `keys()`), one character: `END_OF_INPUT` at the end of
        input, `INTERRUPTED` for the interrupt key (also inside a longer read), `NOT_ONE_KEY`
        for a read of more than one key."""
        ...

    def discard(self) -> None:
        """Drop what was typed and not read yet (inside `keys()`)."""
        ...

    def line(self) -> str | None:
        """The next line typed (inside `keys()`), echoed, without its end: None at the end of
        input, `INTERRUPTED` for the interrupt key."""
        ...


@final
class Terminal:
    """The controlling terminal, open read-write: `writer` to show, `keys`/`key`/`line` to read.

    The terminal's modes are restored after `keys()`, also when it is interrupted.
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
        """Keys one at a time: no line editing, echo or signals, each read returning once a
        byte has come; input not read is dropped on the way in and out. The modes are restored
        however the block ends."""
        saved = termios.tcgetattr(self._fd)
        changed = termios.tcgetattr(self._fd)
        changed[_LFLAG] &= ~_COOKED
        changed[_CC][termios.VMIN] = 1
        changed[_CC][termios.VTIME] = 0
        termios.tcsetattr(self._fd, termios.TCSAFLUSH, changed)
        try:
            yield
        finally:
            with contextlib.suppress(termios.error):  # hung up: no modes left to restore
                termios.tcsetattr(self._fd, termios.TCSAFLUSH, saved)

    def key(self) -> str:
        """The next key pressed; see `Keyboard.key`. A hung-up terminal raises OSError."""
        text = os.read(self._fd, _READ_BYTES).decode("utf-8", errors="replace")
        chars = termios.tcgetattr(self._fd)[_CC]
        interrupt = _special(chars, termios.VINTR)
        if interrupt is not None and interrupt in text:
            return INTERRUPTED
        if not text or text == _special(chars, termios.VEOF):
            return END_OF_INPUT
        return text if len(text) == 1 else NOT_ONE_KEY

    def discard(self) -> None:
        """Drop what was typed and not read yet; see `Keyboard.discard`."""
        termios.tcflush(self._fd, termios.TCIFLUSH)

    def line(self) -> str | None:
        """The next line typed; see `Keyboard.line`. Printable characters are echoed; erase
        (Backspace) and kill (Ctrl-U) edit the line, other control keys are left out, the end
        of input ends a line begun."""
        chars = termios.tcgetattr(self._fd)[_CC]
        interrupt, end, kill, erase = (
            _special(chars, which)
            for which in (termios.VINTR, termios.VEOF, termios.VKILL, termios.VERASE)
        )
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        typed: list[str] = []
        escape = _Escape()
        while len(typed) < MAX_LINE_CHARS:
            data = os.read(self._fd, _READ_BYTES)
            if not data:
                return None
            for char in decoder.decode(data):
                if escape.swallows(char):  # a special key's sequence (an arrow): left out
                    continue
                if char == interrupt:
                    return INTERRUPTED
                if char in "\r\n" or (char == end and typed):
                    self._echo("\n")
                    return "".join(typed)
                if char == end:
                    return None
                if char in _ERASE or char == erase:
                    if typed:
                        typed.pop()
                        self._echo("\b \b")
                elif char == kill:
                    self._echo("\b \b" * len(typed))
                    typed.clear()
                elif char.isprintable() and len(typed) < MAX_LINE_CHARS:
                    typed.append(char)
                    self._echo(char)
        self._echo("\n")
        return "".join(typed)

    def fileno(self) -> int:
        """The terminal's file descriptor (for its modes)."""
        return self._fd

    def close(self) -> None:
        """Close the terminal (what could not be written to a hung-up one is dropped)."""
        try:
            with contextlib.suppress(OSError):
                self.writer.close()
        finally:
            os.close(self._fd)

    def _echo(self, text: str) -> None:
        self.writer.write(text)
        self.writer.flush()


@final
class _Escape:
    """Follows escape sequences (ESC, then `[` or `O`, parameters and a final character) to
    leave them out of a line."""

    __slots__ = ("_state",)

    def __init__(self) -> None:
        self._state: Literal["text", "escape", "sequence"] = "text"

    def swallows(self, char: str) -> bool:
        """Whether `char` is part of an escape sequence."""
        match self._state:
            case "text":
                if char != _ESCAPE:
                    return False
                self._state = "escape"
            case "escape":
                self._state = "sequence" if char in "[O" else "text"
            case "sequence":
                if not "\x20" <= char <= "\x3f":  # parameters and intermediates go on
                    self._state = "text"  # the final character ends it
        return True


def _special(chars: list[bytes | int], which: int) -> str | None:
    """The terminal's special character `which` (e.g. VINTR); None when it is turned off."""
    char = chars[which]
    if not isinstance(char, bytes) or char == _DISABLED:
        return None
    return char.decode("latin-1")


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
