"""Ctrl-C while toolfx runs tools: the first press cancels what runs through its cancel signal,
a second ends the process at once.

Every press is a byte on a pipe that a watcher thread reads and acts on: the first sets the
signal, a later one exits. The wakeup fd writes SIGINT's byte from the C level of Python's signal
handling, whichever thread the signal lands on and even when the main thread is about to block
before Python ran the handler (under trio, which keeps the wakeup fd, the handler writes it). The
handler itself (on the main thread, between two bytecodes of whatever it was doing) does no more:
a signal's watchers (a process runner's wake-up, an event loop's scheduled cancel) take locks the
interrupted code may hold, so they never run inside it. A prompt open on the main thread is ended
by a `KeyboardInterrupt` from the handler (the watcher nudges the main thread with a SIGINT of
its own if the handler has not run); a prompt that raises `KeyboardInterrupt` itself (Ctrl-C
read as a key) counts as a press. Either way its answer is `cancelled`, and the signal is set
before it returns.

Once the command has settled and recorded what ran, `Interrupts.end` raises `Interrupted`, whose
text is the one line the command prints before it exits 130. A prompt still blocked in a worker
thread (an event loop's, which no cancellation reaches and which the interpreter would wait for
at exit) and a second press end the process at once instead: the terminal's modes as they were
when the command started are put back, the standard streams flushed as far as they can be, the
line written, and the process ended (`os._exit`). The log is written unbuffered, a line at a
time, so it keeps whole lines only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import termios
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Final, NoReturn, final

from toolfx.core.json import plural
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal
from toolfx.core.tools import ErrorCode, ToolExecutionFailure, ToolExecutionResult
from toolfx.interpreters.cli._exits import EXIT_INTERRUPTED
from toolfx.interpreters.cli._tty import Terminal, open_terminal

__all__ = [
    "AT_ONCE",
    "INTERRUPT_REASON",
    "Interrupted",
    "Interrupts",
    "TerminalModes",
    "cancelled_line",
    "exit_at_once",
]

INTERRUPT_REASON: Final = "interrupted (Ctrl-C)"
"""The reason set on the signal of what a Ctrl-C cancels."""

AT_ONCE: Final = "interrupted again (Ctrl-C); exiting at once without waiting for what still ran"
"""The line a second Ctrl-C prints (after `toolfx: `)."""

_PRESS: Final = b"\0"
"""A press `press` writes on the watcher's pipe (the wakeup fd writes SIGINT's number)."""

_PRESSES: Final = frozenset({_PRESS[0], signal.SIGINT})
"""The bytes on the watcher's pipe that are presses."""

_READ: Final = 64
"""Bytes read from the watcher's pipe at a time."""


class Interrupted(Exception):
    """The command was interrupted (Ctrl-C) and has recorded what it cancelled: its text is the
    line to print before exiting 130."""


class _AtPrompt(KeyboardInterrupt):
    """Ends a prompt open on the main thread when Ctrl-C comes (already counted as a press)."""


@final
class TerminalModes:
    """The controlling terminal's modes when the command started, put back on an exit at once
    (a prompt may have changed them and had no chance to restore them)."""

    __slots__ = ("_modes",)

    def __init__(self) -> None:
        self._modes: list[int | list[bytes | int]] | None = None
        with _terminal() as terminal:
            if terminal is not None:
                with contextlib.suppress(termios.error):
                    self._modes = termios.tcgetattr(terminal.fileno())

    def restore(self) -> None:
        """Put the modes back (nothing without a terminal); a failure is ignored: exiting."""
        if self._modes is None:
            return
        with _terminal() as terminal:
            if terminal is not None:
                with contextlib.suppress(termios.error):
                    termios.tcsetattr(terminal.fileno(), termios.TCSANOW, self._modes)


@contextlib.contextmanager
def _terminal() -> Iterator[Terminal | None]:
    """The controlling terminal, open for the block (None if the process has none)."""
    terminal = open_terminal()
    try:
        yield terminal
    finally:
        if terminal is not None:
            terminal.close()


def exit_at_once(line: str, modes: TerminalModes | None = None) -> NoReturn:
    """End the process now with status 130, after putting back the terminal's `modes`, flushing
    the standard streams as far as they can be and writing `toolfx: LINE` on stderr."""
    if modes is not None:
        modes.restore()
    for stream in (sys.stdout, sys.stderr):
        # closed, or flushing already (the signal came in the middle of a write): as it is
        with contextlib.suppress(OSError, ValueError, RuntimeError, AttributeError):
            stream.flush()
    with contextlib.suppress(OSError):
        if os.isatty(1):
            os.write(1, b"\x1b[?25h")  # a live display may have hidden the cursor
        os.write(2, f"\ntoolfx: {line}\n".encode("utf-8", "replace"))
    os._exit(EXIT_INTERRUPTED)


def cancelled_line(cancelled: int, unstarted: int, kept: Sequence[str]) -> str:
    """The line an interrupted session ends with: how many calls were stopped while they ran and
    how many never started, and which of the files `kept` (the log, the journal) hold their
    results."""
    counts = [f"{plural(cancelled, 'call')} cancelled"] if cancelled else []
    counts += [f"{plural(unstarted, 'call')} not started"] if unstarted else []
    if not counts:
        return "interrupted; no call was running"
    total = cancelled + unstarted
    if not kept:
        return f"interrupted; {', '.join(counts)}"
    have = "has" if len(kept) == 1 else "have"
    their = "its result" if total == 1 else "their results"
    return f"interrupted; {', '.join(counts)} (the {' and the '.join(kept)} {have} {their})"


@final
class Interrupts:
    """The Ctrl-C presses of one command, and the signal of what runs now (a session's turn).

    While `watching`, every press is a byte on a pipe a watcher thread reads: written by the C
    level of Python's signal handling (the wakeup fd, from whatever thread the signal landed on,
    even while the main thread is about to block) or by `press` (a prompt that read Ctrl-C as a
    key; SIGINT's Python handler when an event loop owns the wakeup fd). `exit_now` ends the
    process (given the line to print) on a second press, and at `end` while a prompt still blocks
    a worker thread; by default `exit_at_once`.
    """

    __slots__ = (
        "_cancelled",
        "_current",
        "_exit_now",
        "_lock",
        "_main_prompt",
        "_modes",
        "_pressed",
        "_prompts",
        "_signal_wakes",
        "_wakes",
    )

    def __init__(self, exit_now: Callable[[str], object] | None = None) -> None:
        self._exit_now = exit_now
        self._pressed = False
        self._lock = threading.Lock()  # never taken by the signal handler
        self._current = CancelSignal()
        self._cancelled: Counter[ErrorCode] = Counter()  # what an interrupt stopped, by code
        self._prompts = 0  # prompts open now, in any thread
        self._main_prompt = False  # a prompt is open on the main thread, not yet interrupted
        self._modes: TerminalModes | None = None
        self._wakes: int | None = None  # the pipe's end a press is written to, while watching
        self._signal_wakes = False  # SIGINT writes it itself (the wakeup fd)

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C has been pressed."""
        return self._pressed

    def signal(self) -> CancelSignal:
        """A new signal for what starts now (a turn's calls share it); already set if Ctrl-C was
        pressed."""
        fresh = CancelSignal()
        with self._lock:
            replaced, self._current = self._current, fresh
        if self._pressed:  # the watcher may not have come to it yet: it cancels `fresh` only
            replaced.cancel(INTERRUPT_REASON)
            fresh.cancel(INTERRUPT_REASON)
        return fresh

    def press(self) -> None:
        """One Ctrl-C: the first sets the current signal, a second ends the process at once (both
        done by the thread `watching` runs)."""
        with self._lock:
            self._wake()

    def _wake(self) -> None:
        self._pressed = True
        wakes = self._wakes
        if wakes is not None:
            with contextlib.suppress(OSError):  # full: presses enough are waiting
                os.write(wakes, _PRESS)

    def settled(self, results: Sequence[ToolExecutionResult]) -> None:
        """Count the cancelled calls among a turn's `results` (only once Ctrl-C was pressed)."""
        if self._pressed:
            self._cancelled.update(
                r.error.code for r in results if isinstance(r, ToolExecutionFailure)
            )

    def answering(
        self, answer: Callable[[ApprovalRequest], ApprovalReply]
    ) -> Callable[[ApprovalRequest], ApprovalReply]:
        """`answer`, whose prompt Ctrl-C ends with `cancelled` (counted as a press)."""

        def answered(request: ApprovalRequest) -> ApprovalReply:
            on_main = threading.current_thread() is threading.main_thread()
            with self._lock:
                self._prompts += 1
            try:
                if on_main:
                    self._main_prompt = True
                if self._pressed:  # pressed before the prompt opened: no one is asked
                    return "cancelled"
                return answer(request)
            except _AtPrompt:  # SIGINT ended the prompt: the press is counted
                self._cancel()  # now, not later on the watcher: the call ends interrupted
                return "cancelled"
            except KeyboardInterrupt:  # the prompt read Ctrl-C as a key
                self._main_prompt = False  # SIGINT's handler has nothing left to end
                self.press()
                self._cancel()
                return "cancelled"
            finally:
                if on_main:
                    self._main_prompt = False
                with self._lock:
                    self._prompts -= 1

        return answered

    def end(self, kept: Sequence[str]) -> None:
        """After an interrupted command has recorded what it cancelled: `Interrupted` with its
        line, or the process ended at once if a prompt still blocks a worker thread. Nothing
        if Ctrl-C was not pressed."""
        if not self._pressed:
            return
        codes = self._cancelled
        line = cancelled_line(
            codes[ErrorCode.ABORTED], codes[ErrorCode.ABORTED_BEFORE_DISPATCH], kept
        )
        with self._lock:
            blocked = self._prompts > 0
        if blocked:
            self._exit(line)
        raise Interrupted(line)

    def on_sigint(self, signum: int, frame: FrameType | None) -> None:
        """SIGINT's handler (on the main thread): a press (unless the wakeup fd told the watcher
        already); a prompt open on the main thread is ended, once."""
        if self._signal_wakes:
            self._pressed = True
        else:
            self._wake()
        if self._main_prompt:
            self._main_prompt = False
            raise _AtPrompt

    @contextlib.contextmanager
    def watching(self, *, wakeup: bool = True) -> Iterator[None]:
        """Ctrl-C handled by this object while the block runs: SIGINT's handler, and the thread
        that acts on the presses (only on the main thread, where Python runs signal handlers).

        With `wakeup`, SIGINT reaches the watcher through the wakeup fd; not under an event loop
        that sets its own while it runs (trio, which warns of another).
        """
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self._modes = TerminalModes()  # kept for `end`, which comes after the block
        presses, wakes = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(wakes, False)  # as the wakeup fd must be
        watcher = threading.Thread(
            target=self._watch, args=(presses,), name="toolfx interrupts", daemon=True
        )
        watcher.start()
        self._wakes, self._signal_wakes = wakes, wakeup
        previous = signal.signal(signal.SIGINT, self.on_sigint)
        before = signal.set_wakeup_fd(wakes, warn_on_full_buffer=False) if wakeup else None
        try:
            yield
        finally:
            if before is not None:
                signal.set_wakeup_fd(before)
            signal.signal(signal.SIGINT, previous)  # no handler writes to `wakes` from here on
            with self._lock:
                self._wakes, self._signal_wakes = None, False
            os.close(wakes)  # the watcher reads the end of the pipe
            watcher.join()
            os.close(presses)

    def _watch(self, presses: int) -> None:
        """Act on each press read from the pipe `presses` until its writing end is closed; the
        nudges it sends the main thread come back as bytes too, and are not presses."""
        count = nudges = 0
        main = threading.main_thread().ident
        while chunk := os.read(presses, _READ):
            for byte in chunk:
                if byte not in _PRESSES:  # another signal with a Python handler
                    continue
                if nudges and byte == signal.SIGINT:
                    nudges -= 1
                    continue
                count += 1
                if count > 1:
                    self._exit(AT_ONCE)
                    continue
                self._cancel()
                if byte == signal.SIGINT and self._main_prompt and main is not None:
                    # the handler has not run: the main thread may have blocked in a prompt's
                    # read before Python ran it; a SIGINT of its own ends that read
                    nudges += 1
                    signal.pthread_kill(main, signal.SIGINT)

    def _cancel(self) -> None:
        """Set the current signal (a watcher may run: never inside the signal handler)."""
        with self._lock:
            current = self._current
        current.cancel(INTERRUPT_REASON)

    def _exit(self, line: str) -> None:
        if self._exit_now is None:
            exit_at_once(line, self._modes)
        self._exit_now(line)
