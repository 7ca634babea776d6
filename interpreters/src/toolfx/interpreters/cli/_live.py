"""The live region of a terminal: a row per running call (a spinner, `tool · call id`, the time it
has run, how far it has got) with the last lines of its output under it, below a bar for a long
turn. Drawn with rich's `Live` only while something runs and erased when it stops (transient),
so what stays printed is the records' lines only.

A call's output arrives as progress messages (a running command's newest lines, several joined
with newlines): of each line, what a terminal would show is kept (the text after its last
carriage return: `10%\r20%` shows `20%`), cut to `MAX_STREAMED_CHARS` and made visible with
`visible`; the last `STREAMED_LINES` are kept per call, and a line never wraps (the console crops
it at its width). A row's call id is shown by `visible_id`, so no two rows look the same.
The time shown is the console's clock (`Console.get_time`), counted from the call's record (or
from its answer, once it was asked).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final, final

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from toolfx.core.runtime import ProgressEvent
from toolfx.interpreters.cli._visible import visible_id, visible_line

__all__ = [
    "MAX_STREAMED_CHARS",
    "PROGRESS_MIN_CALLS",
    "STREAMED_LINES",
    "SUB_CALL_INDENT",
    "LiveRegion",
    "RunningCalls",
    "elapsed",
]

STREAMED_LINES: Final = 5
"""How many of a running call's last output lines are shown under its row."""
MAX_STREAMED_CHARS: Final = 1000
"""The most characters of one streamed output line kept (the console shows what fits its width)."""
PROGRESS_MIN_CALLS: Final = 5
"""A turn with more calls than this shows a bar of its settled calls."""
SUB_CALL_INDENT: Final = 4
"""How far a program's tool call is indented under the program."""
REFRESHES_PER_SECOND: Final = 8
"""How often the region is drawn again while calls run (the spinners and times move)."""

_SPINNER: Final = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_SPINNER_FRAMES_PER_SECOND: Final = 12.5
_BAR_WIDTH: Final = 30


def elapsed(seconds: float) -> str:
    """A running time as `H:MM:SS` (`0:00:03`)."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, whole = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{whole:02d}"


@final
@dataclass(slots=True)
class _Row:
    """What is shown of one running call."""

    title: str
    sub: bool
    started: float
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=STREAMED_LINES))
    count: str = ""
    """How far it has got against a known total (`2/5`), or nothing."""


@final
@dataclass(slots=True)
class _Turn:
    """A long turn: its number, how many calls it has, how many have settled."""

    number: int
    calls: int
    settled: int = 0


@final
class RunningCalls:
    """The rows of the running calls and the bar of a long turn, as a renderable; changed from
    any thread while the live display draws it."""

    __slots__ = ("_clock", "_lock", "_rows", "_turn")

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rows: dict[str, _Row] = {}
        self._turn: _Turn | None = None

    def idle(self) -> bool:
        """Whether nothing runs and no turn waits for calls: nothing to draw live."""
        with self._lock:
            turn = self._turn
            return not self._rows and (turn is None or turn.settled >= turn.calls)

    def start(self, call_id: str, tool: str, *, sub: bool = False) -> None:
        """A call is recorded: its row, timed from now."""
        with self._lock:
            self._rows[call_id] = _Row(self._title(tool, call_id), sub, self._clock())

    def restart(self, call_id: str) -> None:
        """A call was answered: its time counts from now (the ask took the time before)."""
        with self._lock:
            row = self._rows.get(call_id)
            if row is not None:
                row.started = self._clock()

    def report(self, event: ProgressEvent) -> None:
        """A call's progress: its count against a known total, and its message's lines."""
        with self._lock:
            row = self._rows.get(event.call_id)
            if row is None:  # progress of a call not (yet) recorded: shown all the same
                title = self._title(event.tool, event.call_id)
                row = self._rows[event.call_id] = _Row(title, False, self._clock())
            if event.total is not None:
                row.count = f"{event.progress:g}/{event.total:g}"
            if event.message is not None:
                pieces = event.message.removesuffix("\n").rsplit("\n", STREAMED_LINES)
                row.lines.extend(_streamed(piece) for piece in pieces[-STREAMED_LINES:])

    def settle(self, call_id: str, *, in_turn: bool) -> None:
        """A call settled: its row goes; a call of the turn (`in_turn`) moves the turn's bar."""
        with self._lock:
            self._rows.pop(call_id, None)
            if in_turn and self._turn is not None:
                self._turn.settled += 1

    def begin_turn(self, number: int, calls: int) -> None:
        """A turn starts: a bar of its calls when it has more than `PROGRESS_MIN_CALLS`."""
        with self._lock:
            self._turn = _Turn(number, calls) if calls > PROGRESS_MIN_CALLS else None

    def end_turn(self) -> None:
        """The turn's bar goes (its calls have settled, or the session ends)."""
        with self._lock:
            self._turn = None

    def clear(self) -> None:
        """Nothing runs any more."""
        with self._lock:
            self._rows.clear()
            self._turn = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The turn's bar, then each running call's row and last output lines."""
        now = self._clock()
        with self._lock:  # what is drawn is taken at once: other threads change it meanwhile
            now_turn = self._turn
            turn = None if now_turn is None else (now_turn.number, now_turn.settled, now_turn.calls)
            rows = [
                (row.title, row.sub, row.started, tuple(row.lines), row.count)
                for row in self._rows.values()
            ]
        if turn is not None:
            number, settled, calls = turn
            bar = Table.grid(padding=(0, 1))
            bar.add_row(
                Text(f"turn {number}"),
                ProgressBar(total=calls, completed=settled, width=_BAR_WIDTH),
                Text(f"{settled}/{calls}"),
            )
            yield bar
        for title, sub, started, lines, count in rows:
            indent = " " * (SUB_CALL_INDENT if sub else 0)
            frame = _SPINNER[int((now - started) * _SPINNER_FRAMES_PER_SECOND) % len(_SPINNER)]
            yield _uncut(
                (f"{indent}{frame} ", "cyan"),
                (title, "bold"),
                (f"  {elapsed(now - started)}", "dim"),
                (f"  {count}" if count else "", "dim"),
            )
            for line in lines:
                yield _uncut((f"{indent}  │ ", "dim"), (line, "dim"))

    @staticmethod
    def _title(tool: str, call_id: str) -> str:
        return f"{visible_line(tool, MAX_STREAMED_CHARS)} · {visible_id(call_id)}"


def _streamed(line: str) -> str:
    """What a terminal shows of one output line (the text after its last carriage return; ones
    that end it, as in CRLF, rewrite nothing), cut to `MAX_STREAMED_CHARS` and made visible."""
    return visible_line(line.rstrip("\r").rpartition("\r")[2], MAX_STREAMED_CHARS)


def _uncut(*parts: tuple[str, str]) -> Text:
    """One line that never wraps: the console crops it at its width."""
    return Text.assemble(*parts, no_wrap=True, overflow="ellipsis")


@final
class LiveRegion:
    """The running calls drawn live on a terminal console: drawn while something runs (not while
    paused for a prompt), erased when nothing does."""

    __slots__ = ("_calls", "_console", "_live", "_lock", "_pauses")

    def __init__(self, console: Console) -> None:
        self._console = console
        self._calls = RunningCalls(console.get_time)
        self._live: Live | None = None
        self._lock = threading.RLock()
        self._pauses = 0

    def started(self, call_id: str, tool: str, *, sub: bool = False) -> None:
        """A call is recorded: its row appears."""
        self._changed(lambda: self._calls.start(call_id, tool, sub=sub))

    def answered(self, call_id: str) -> None:
        """A call's ask was answered: its time counts from now."""
        self._changed(lambda: self._calls.restart(call_id))

    def reported(self, event: ProgressEvent) -> None:
        """A call's progress: shown at the next refresh (a row appears if it has none)."""
        self._changed(lambda: self._calls.report(event), refresh=False)

    def settled(self, call_id: str, *, in_turn: bool) -> None:
        """A call settled: its row goes (the region is erased once nothing runs)."""
        self._changed(lambda: self._calls.settle(call_id, in_turn=in_turn))

    def turn(self, number: int, calls: int) -> None:
        """A turn starts: what was drawn goes; a long turn gets a bar."""
        with self._lock:
            self._stop()
            self._calls.begin_turn(number, calls)

    def stop(self) -> None:
        """The session ends: nothing is drawn any more."""
        with self._lock:
            self._stop()
            self._calls.clear()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing is drawn inside (for a prompt); what still runs is drawn again after."""
        with self._lock:
            self._pauses += 1
            self._stop()
        try:
            yield
        finally:
            with self._lock:
                self._pauses -= 1
                self._draw(refresh=True)

    def _changed(self, change: Callable[[], None], *, refresh: bool = True) -> None:
        with self._lock:
            change()
            self._draw(refresh=refresh)

    def _draw(self, *, refresh: bool) -> None:
        """Start, refresh or stop drawing, as what runs and the pauses say."""
        if self._pauses:
            return
        if self._calls.idle():
            self._stop()  # drawn a last time: a finished turn's bar shows all its calls
            self._calls.end_turn()
        elif self._live is None:
            self._live = Live(
                self._calls,
                console=self._console,
                transient=True,
                refresh_per_second=REFRESHES_PER_SECOND,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start(refresh=True)
        elif refresh:
            self._live.refresh()

    def _stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
