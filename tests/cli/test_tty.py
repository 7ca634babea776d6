"""The terminal the prompt reads, over a real pseudo-terminal pair: one key, a line with its
editing, the interrupt and end-of-input keys read as keys, and the modes restored."""

from __future__ import annotations

import os
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolfx.interpreters.cli._tty import (
    END_OF_INPUT,
    INTERRUPTED,
    NOT_ONE_KEY,
    Terminal,
    open_terminal,
)


@pytest.fixture
def pty() -> Iterator[tuple[int, Terminal]]:
    """The master end of a pseudo-terminal (what the person types and sees) and its other end
    as the terminal."""
    master, slave = os.openpty()
    terminal = Terminal(slave)
    try:
        yield master, terminal
    finally:
        terminal.close()
        os.close(master)


def echoed(master: int, through: str) -> str:
    """What the terminal showed, read until it ends with `through`: a pseudo-terminal hands its
    output over to the master end asynchronously, so one read may see only part of it. Each
    read waits for more; the reads are bounded by the bytes, not by a time."""
    shown = b""
    while not shown.decode(errors="replace").endswith(through):
        assert len(shown) < _ECHO_LIMIT, f"the terminal showed {shown!r}"
        shown += os.read(master, 1024)
    return shown.decode()


_ECHO_LIMIT = 4096
"""More than any test here has the terminal show."""


@pytest.mark.parametrize(
    ("typed", "key"),
    [(b"o", "o"), (b"\xc3\xa9", "é"), (b"\x03", INTERRUPTED), (b"\x04", END_OF_INPUT)],
)
def test_a_key_is_read_alone_without_echo(
    pty: tuple[int, Terminal], typed: bytes, key: str
) -> None:
    master, terminal = pty
    before = termios.tcgetattr(master)
    with terminal.keys():
        os.write(master, typed)
        assert terminal.key() == key
    assert termios.tcgetattr(master) == before  # the modes as they were


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        (b"ox", NOT_ONE_KEY),  # never the first of several
        (b"\x1b[A", NOT_ONE_KEY),  # a special key's escape sequence
        (b"\x1b[200~o\x1b[201~", NOT_ONE_KEY),  # a bracketed paste
        (b"\x1b]l" + b"x" * 100 + b"\x1b\\", NOT_ONE_KEY),  # a terminal's title report
        (b"o\x04", NOT_ONE_KEY),  # the end-of-input key only alone
        (b"xo\x03", INTERRUPTED),  # the interrupt key wherever it is
        (b"\x1b", "\x1b"),  # Escape pressed alone is one key
    ],
)
def test_only_a_read_of_one_key_is_a_key(pty: tuple[int, Terminal], typed: bytes, key: str) -> None:
    master, terminal = pty
    with terminal.keys():
        os.write(master, typed)
        assert terminal.key() == key


def test_what_is_pending_can_be_dropped(pty: tuple[int, Terminal]) -> None:
    master, terminal = pty
    with terminal.keys():
        os.write(master, b"x")
        terminal.discard()
        os.write(master, b"o")
        assert terminal.key() == "o"


def test_a_hung_up_terminal_raises_os_errors_and_closes_quietly() -> None:
    master, slave = os.openpty()
    terminal = Terminal(slave)
    os.close(master)
    terminal.writer.write("never shown")
    with pytest.raises((OSError, termios.error)), terminal.keys():
        terminal.key()
    terminal.close()  # what could not be written is dropped


def test_a_line_is_edited_and_echoed_and_control_keys_are_left_out(
    pty: tuple[int, Terminal],
) -> None:
    master, terminal = pty
    with terminal.keys():
        os.write(master, b"no\x15ab\x7fc\x1b[Dd\x07!\n")  # kill, erase, an arrow, a bell
        assert terminal.line() == "acd!"
    shown = echoed(master, through="\r\n")
    assert shown == "no\b \b\b \bab\b \bcd!\r\n"


@pytest.mark.parametrize(
    ("typed", "line"), [(b"abc\x03", INTERRUPTED), (b"\x04", None), (b"ab\x04", "ab")]
)
def test_a_line_ends_at_the_interrupt_or_end_of_input_keys(
    pty: tuple[int, Terminal], typed: bytes, line: str | None
) -> None:
    master, terminal = pty
    with terminal.keys():
        os.write(master, typed)
        assert terminal.line() == line


def test_the_modes_are_restored_however_reading_ends(pty: tuple[int, Terminal]) -> None:
    master, terminal = pty
    before = termios.tcgetattr(master)
    reading: list[int] = []

    def interrupted() -> None:
        with terminal.keys():
            reading.append(termios.tcgetattr(master)[3])
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert reading[0] & termios.ISIG == 0  # while reading, the interrupt key is a key
    assert termios.tcgetattr(master) == before


def test_without_a_terminal_there_is_none_to_open(tmp_path: Path) -> None:
    assert open_terminal(str(tmp_path / "missing")) is None
    regular = tmp_path / "file"
    regular.write_text("not a terminal")
    assert open_terminal(str(regular)) is None
